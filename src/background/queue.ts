import type { Env } from "../env";
import { log, withLogContext } from "../lib/log";

export type QueueConsumer = (batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext) => Promise<void>;

/** Every queue wrangler.toml declares a consumer for; the composition root must give each one. */
export const QUEUE_NAMES = ["sends", "review-sync", "events", "webhooks", "jobs", "clicks", "dead-letter"] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];
export type QueueConsumers = Record<QueueName, QueueConsumer>;

const isQueueName = (name: string): name is QueueName => (QUEUE_NAMES as readonly string[]).includes(name);

/** Deployed environments prefix their queues (QUEUE_PREFIX, e.g. "reputation-ops-"): queue names are per account. */
export const localQueueName = (queue: string, prefix = "") =>
  prefix && queue.startsWith(prefix) ? queue.slice(prefix.length) : queue;

/**
 * Routes a batch to its queue's consumer. A queue without one is a deployment error: the throw
 * makes the runtime retry the batch, then dead-letter it after max_retries (never dropped).
 */
export function dispatchQueue(consumers: QueueConsumers): QueueConsumer {
  return async (batch, env, ctx) => {
    const name = localQueueName(batch.queue, env.QUEUE_PREFIX);
    if (!isQueueName(name)) {
      log.error("no consumer for queue", { queue: batch.queue, count: batch.messages.length });
      throw new Error(`no consumer for queue ${batch.queue}`);
    }
    await withLogContext({ queue: name }, () => consumers[name](batch, env, ctx));
  };
}

/** A part of a batch as a batch of its own: ack/retry of all applies to its messages only. */
export function subBatch(batch: MessageBatch<unknown>, messages: readonly Message<unknown>[]): MessageBatch<unknown> {
  return {
    queue: batch.queue,
    messages,
    ackAll: () => {
      for (const m of messages) m.ack();
    },
    retryAll: (o) => {
      for (const m of messages) m.retry(o);
    },
  } as MessageBatch<unknown>;
}

/** One queue, two kinds of message: those `picked` recognises go to it, the rest to `rest`. */
export function splitQueue(
  pick: (body: unknown) => boolean,
  picked: QueueConsumer,
  rest: QueueConsumer,
): QueueConsumer {
  return async (batch, env, ctx) => {
    const mine = batch.messages.filter((m) => pick(m.body));
    const others = batch.messages.filter((m) => !pick(m.body));
    if (mine.length) await picked(subBatch(batch, mine), env, ctx);
    if (others.length) await rest(subBatch(batch, others), env, ctx);
  };
}
