import type { Env } from "../../env";
import { backoffSeconds } from "../../lib/backoff";
import { clicksOf, recordClicks, type ClickMessage } from "./clicks";

/** One kind of click the CLICKS queue carries: how to read it from a message and record a batch of them. */
export interface ClickKind<T = unknown> {
  name: string;
  parse(body: unknown): T[] | null;
  record(env: Env, clicks: T[]): Promise<void>;
}

/** Solicitation short links (`/v1/r/{token}`). */
export const shortLinkClicks: ClickKind<ClickMessage> = { name: "short-link", parse: clicksOf, record: async (env, clicks) => void (await recordClicks(env, clicks)) };

/**
 * The CLICKS consumer over the click kinds the composition root lists (src/wiring.ts): all clicks of a
 * queue batch in one D1 batch per kind. Idempotent under redelivery (click ids are primary keys, the
 * clicked event id is per solicitation, clickedAt is set only while null). A malformed message is
 * dropped; a D1 failure retries the batch with backoff.
 */
export function clicksConsumer(kinds: ClickKind<any>[]) {
  return async (batch: MessageBatch<unknown>, env: Env): Promise<void> => {
    const valid = batch.messages.filter((m) => kinds.some((k) => k.parse(m.body) !== null));
    for (const m of batch.messages) {
      if (!valid.includes(m)) {
        console.warn(JSON.stringify({ level: "warn", message: "malformed click message dropped", id: m.id }));
        m.ack();
      }
    }
    try {
      for (const kind of kinds) await kind.record(env, valid.flatMap((m) => kind.parse(m.body) ?? []));
      for (const m of valid) m.ack();
    } catch (err) {
      console.error(JSON.stringify({ level: "error", message: "recording clicks failed", messages: valid.length, error: String(err) }));
      for (const m of valid) m.retry({ delaySeconds: backoffSeconds(m.attempts) });
    }
  };
}
