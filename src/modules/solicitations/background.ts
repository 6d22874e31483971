import { createDb } from "../../db/client";
import type { Sweep } from "../../background/cron";
import type { QueueConsumer } from "../../background/queue";
import { deliverSends } from "./delivery";
import { purgeExpiredIdempotencyKeys } from "./idempotency";
import { sweepStalePending } from "./stale";

export const sendsConsumer: QueueConsumer = (batch, env, ctx) => deliverSends(batch, env, ctx);
export const stalePendingSweep: Sweep = { name: "solicitations-stale-pending", run: (env, now) => sweepStalePending(env, now).then(() => undefined) };
export const idempotencyKeysPurgeSweep: Sweep = { name: "idempotency-keys-purge", run: (env, now) => purgeExpiredIdempotencyKeys(createDb(env.DB), now).then(() => undefined) };
