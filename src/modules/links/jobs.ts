import type { Env } from "../../env";
import { registerQueueConsumer } from "../../jobs/queue";
import { backoffSeconds } from "../../lib/backoff";
import { isClickMessage, recordClicks, type ClickMessage } from "./clicks";

/**
 * The CLICKS consumer: one D1 batch per queue batch. Idempotent under redelivery (click ids are
 * primary keys, the clicked event id is per solicitation, clickedAt is set only while null).
 */
export async function consumeClicks(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const valid = batch.messages.filter((m) => isClickMessage(m.body));
  for (const m of batch.messages) {
    if (!isClickMessage(m.body)) {
      console.warn(JSON.stringify({ level: "warn", message: "malformed click message dropped", id: m.id }));
      m.ack();
    }
  }
  try {
    await recordClicks(env, valid.map((m) => m.body as ClickMessage));
    for (const m of valid) m.ack();
  } catch (err) {
    console.error(JSON.stringify({ level: "error", message: "recording clicks failed", count: valid.length, error: String(err) }));
    for (const m of valid) m.retry({ delaySeconds: backoffSeconds(m.attempts) });
  }
}

registerQueueConsumer("clicks", consumeClicks);
