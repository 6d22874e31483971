import type { ShardDb } from "../db/client";
import { recordShardSizes } from "../db/shard-sizes";
import { shardDb, shardNumbers, tenantPlacement } from "../db/shards";
import { FENCED_RETRY_SECONDS } from "../db/tenant-fence";
import type { Env } from "../env";
import { groupMap } from "../lib/collections";
import { log, withLogContext } from "../lib/log";
import type { Sweep } from "./cron";
import { type QueueConsumer, subBatch } from "./queue";

/**
 * Background work over tenant shards (docs/scaling.md). A module's sweep or consumer is written
 * for one shard, which it is handed as a `ShardDb`; the control plane stays `controlDb(env)`. The
 * environment is passed on unchanged (env.DB is never rewritten to mean a shard), so no module names
 * a binding and neither database can stand for the other (docs/SECURITY.md, "Databases by construction").
 */
export type ShardSweep = { name: string; run: (env: Env, shard: ShardDb, now: Date) => Promise<void> };
export type ShardConsumer = (
  batch: MessageBatch<unknown>,
  env: Env,
  shard: ShardDb,
  ctx: ExecutionContext,
) => Promise<void>;

/** The sweep once per shard, side by side; one shard's failure fails the run after all ran. */
export function acrossShards(sweep: ShardSweep): Sweep {
  return {
    name: sweep.name,
    run: async (env, now) => {
      const shards = shardNumbers(env);
      const results = await Promise.allSettled(
        shards.map((n) => withLogContext({ shard: n }, () => sweep.run(env, shardDb(env, n), now))),
      );
      const failed = results.flatMap((r, i) =>
        r.status === "rejected" ? [`shard ${shards[i]}: ${String(r.reason)}`] : [],
      );
      if (failed.length) throw new Error(`${sweep.name} failed on ${failed.join("; ")}`);
    },
  };
}

/**
 * Splits a batch by the shard of each message's tenant and runs the consumer once per shard.
 * A message without a tenant (sent before sharding) goes to shard 0, the database that held every
 * tenant then; so does an unknown tenant's (the consumer finds none of its rows and decides, as before).
 * A message of a tenant being moved is not run: it is retried after the fence's wait
 * (src/db/tenant-fence.ts), so nothing is written to the source shard while the move copies it.
 */
export function byTenantShard(consumer: ShardConsumer, tenantOf: (body: unknown) => string | undefined): QueueConsumer {
  return async (batch, env, ctx) => {
    const placed: { shard: number; m: Message<unknown> }[] = [];
    for (const m of batch.messages) {
      const tenantId = tenantOf(m.body);
      const placement = tenantId === undefined ? null : await tenantPlacement(env, tenantId);
      if (placement?.movingSince) retryFenced(batch.queue, m, tenantId!);
      else placed.push({ shard: placement?.shard ?? 0, m });
    }
    for (const [shard, messages] of groupMap(
      placed,
      (p) => p.shard,
      (p) => p.m,
    )) {
      await withLogContext({ shard }, () => consumer(subBatch(batch, messages), env, shardDb(env, shard), ctx));
    }
  };
}

/** Not acked and not failed: delivered again once the move is likely over (each wait counts as a delivery attempt). */
export function retryFenced(queue: string, m: Message<unknown>, tenantId: string) {
  log.warn("queue message of a moving tenant retried later", {
    queue,
    id: m.id,
    tenantId,
    attempts: m.attempts,
    delaySeconds: FENCED_RETRY_SECONDS,
  });
  m.retry({ delaySeconds: FENCED_RETRY_SECONDS });
}

export const tenantIdField = (body: unknown): string | undefined => {
  const id = (body as { tenantId?: unknown } | null)?.tenantId;
  return typeof id === "string" ? id : undefined;
};

/** Daily, once (a control-plane sweep): every shard's size for placement (src/db/shard-sizes.ts). */
export const shardSizesSweep: Sweep = {
  name: "shard-sizes",
  run: async (env, now) => {
    await recordShardSizes(env, now);
  },
};
