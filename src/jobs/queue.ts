import type { Env } from "../env";
import { backoffSeconds } from "../lib/backoff";
import { consumeDeadLetters } from "./dead-letter";

export type QueueHandler = (batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext) => Promise<void>;

/** Queue name (as in wrangler.toml) -> consumer. Domains register theirs here. */
const consumers: Record<string, QueueHandler> = {
  "dead-letter": consumeDeadLetters,
};

export const registerQueueConsumer = (queue: string, handler: QueueHandler) => {
  consumers[queue] = handler;
};

/** Deployed environments prefix their queues (QUEUE_PREFIX, e.g. "reputation-ops-"): queue names are per account. */
export const localQueueName = (queue: string, prefix = "") => (prefix && queue.startsWith(prefix) ? queue.slice(prefix.length) : queue);

export async function handleQueue(batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext): Promise<void> {
  const consumer = consumers[localQueueName(batch.queue, env.QUEUE_PREFIX)];
  if (!consumer) {
    // No consumer deployed yet: keep the messages (they dead-letter after max_retries, never vanish).
    console.warn(JSON.stringify({ level: "warn", message: "no consumer for queue", queue: batch.queue, count: batch.messages.length }));
    for (const m of batch.messages) m.retry({ delaySeconds: backoffSeconds(m.attempts) });
    return;
  }
  await consumer(batch, env, ctx);
}
