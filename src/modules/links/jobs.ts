import type { Env } from "../../env";
import { registerQueueConsumer } from "../../jobs/queue";
import { backoffSeconds } from "../../lib/backoff";
import { recordReviewLinkClicks, reviewLinkClicksOf } from "../review-links/clicks";
import { clicksOf, recordClicks } from "./clicks";

/**
 * The CLICKS consumer: all clicks of a queue batch in one D1 batch per kind (solicitation short
 * links; review links `/l/{slug}`). Idempotent under redelivery (click ids are primary keys, the
 * clicked event id is per solicitation, clickedAt is set only while null). A malformed message is
 * dropped; a D1 failure retries the batch with backoff.
 */
export async function consumeClicks(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const valid = batch.messages.filter((m) => clicksOf(m.body) !== null || reviewLinkClicksOf(m.body) !== null);
  for (const m of batch.messages) {
    if (!valid.includes(m)) {
      console.warn(JSON.stringify({ level: "warn", message: "malformed click message dropped", id: m.id }));
      m.ack();
    }
  }
  try {
    await recordClicks(env, valid.flatMap((m) => clicksOf(m.body) ?? []));
    await recordReviewLinkClicks(env.DB, valid.flatMap((m) => reviewLinkClicksOf(m.body) ?? []));
    for (const m of valid) m.ack();
  } catch (err) {
    console.error(JSON.stringify({ level: "error", message: "recording clicks failed", messages: valid.length, error: String(err) }));
    for (const m of valid) m.retry({ delaySeconds: backoffSeconds(m.attempts) });
  }
}

registerQueueConsumer("clicks", consumeClicks);
