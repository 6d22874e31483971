import type { ShardSweep } from "../../background/shards";
import { purgeFinishedJobs } from "./retention";

/** Daily, per shard: stalled jobs stopped; finished jobs' inputs and export slices after 7 days, rows after 30 (retention.ts). */
export const purgeFinishedJobsSweep: ShardSweep = {
  name: "purge-finished-jobs",
  run: (_env, shard, now) => purgeFinishedJobs(shard, now).then(() => undefined),
};
