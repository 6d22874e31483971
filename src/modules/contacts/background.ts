import type { ShardSweep } from "../../background/shards";
import { runRetentionSweep } from "./retention";

export const contactsRetentionSweep: ShardSweep = {
  name: "contacts-retention",
  run: async (env, shard, now) => void (await runRetentionSweep(env, shard, now)),
};
