import type { ShardSweep } from "../../background/shards";
import { refreshDueCompetitors } from "./refresh";

export const competitorRefreshSweep: ShardSweep = {
  name: "competitor-refresh",
  run: async (env, shard, now) => void (await refreshDueCompetitors(env, shard, now)),
};
