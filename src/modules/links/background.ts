import { retryFenced } from "../../background/shards";
import { tenantWritable } from "../../db/tenant-fence";
import type { Env } from "../../env";
import { backoffSeconds } from "../../lib/backoff";
import { log } from "../../lib/log";
import { type ClickMessage, clicksOf, recordClicks } from "./clicks";

/** One kind of click the CLICKS queue carries: how to read it from a message and record a batch of them. */
export interface ClickKind<T extends { tenantId: string } = { tenantId: string }> {
  name: string;
  parse(body: unknown): T[] | null;
  record(env: Env, clicks: T[]): Promise<void>;
}

/** Solicitation short links (`/v1/r/{token}`). */
export const shortLinkClicks: ClickKind<ClickMessage> = {
  name: "short-link",
  parse: clicksOf,
  record: async (env, clicks) => void (await recordClicks(env, clicks)),
};

/**
 * The CLICKS consumer over the click kinds the composition root lists (src/wiring.ts): all clicks of a
 * queue batch in one D1 batch per kind. Idempotent under redelivery (click ids are primary keys, the
 * clicked event id is per solicitation, clickedAt is set only while null). A malformed message is
 * dropped; a D1 failure retries the batch with backoff.
 */
// biome-ignore lint/suspicious/noExplicitAny: a list of kinds, each with its own message type (parse and record agree)
export function clicksConsumer(kinds: ClickKind<any>[]) {
  return async (batch: MessageBatch<unknown>, env: Env): Promise<void> => {
    const parsed = batch.messages.filter((m) => kinds.some((k) => k.parse(m.body) !== null));
    for (const m of batch.messages) {
      if (!parsed.includes(m)) {
        log.warn("malformed click message dropped", { id: m.id });
        m.ack();
      }
    }
    // a message holds clicks of many tenants: one of a tenant being moved waits whole (recording is idempotent)
    const valid: Message<unknown>[] = [];
    for (const m of parsed) {
      const fenced = await firstFenced(
        env,
        kinds.flatMap((k) => k.parse(m.body) ?? []),
      );
      if (fenced) retryFenced(batch.queue, m, fenced);
      else valid.push(m);
    }
    try {
      for (const kind of kinds)
        await kind.record(
          env,
          valid.flatMap((m) => kind.parse(m.body) ?? []),
        );
      for (const m of valid) m.ack();
    } catch (err) {
      log.error("recording clicks failed", { messages: valid.length, error: String(err) });
      for (const m of valid) m.retry({ delaySeconds: backoffSeconds(m.attempts) });
    }
  };
}

/** The first tenant among the clicks that is being moved, if any (each tenant looked up once, from the directory cache). */
async function firstFenced(env: Env, clicks: { tenantId: string }[]): Promise<string | undefined> {
  for (const tenantId of new Set(clicks.map((c) => c.tenantId)))
    if (!(await tenantWritable(env, tenantId))) return tenantId;
  return undefined;
}
