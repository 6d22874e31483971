import type { ShardConsumer, ShardSweep } from "../../background/shards";
import { deliverSends } from "./delivery";
import { purgeExpiredIdempotencyKeys } from "./idempotency";
import { sweepStalePending } from "./stale";

export const sendsConsumer: ShardConsumer = (batch, env, shard, ctx) => deliverSends(batch, env, shard, ctx);
export const stalePendingSweep: ShardSweep = {
  name: "solicitations-stale-pending",
  run: (env, shard, now) => sweepStalePending(env, shard, now).then(() => undefined),
};
export const idempotencyKeysPurgeSweep: ShardSweep = {
  name: "idempotency-keys-purge",
  run: (_env, shard, now) => purgeExpiredIdempotencyKeys(shard, now).then(() => undefined),
};
