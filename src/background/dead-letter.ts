import { and, count, eq, gte } from "drizzle-orm";
import type { ControlDb } from "../db/client";
import { deadLetters } from "../db/schema";
import { controlDb } from "../db/shards";
import type { Env } from "../env";
import { newId } from "../lib/ids";
import { keysetPage, type Page, type PageQuery } from "../lib/pagination";
import { chunkRows } from "../lib/sql";
import { nowIso } from "../lib/time";

/**
 * Dead letters, the one module that writes and reads them (`dead_letters`, a control-plane table:
 * docs/scaling.md): messages that exhausted a queue's retries (the `dead-letter` queue's consumer
 * below) and webhook deliveries that used up their schedule (outgoing webhooks' delivery). They are
 * listed and counted by the admin API (GET /admin/dead-letters, GET /admin/status) and replayed by
 * POST /admin/dead-letters/{id}/replay (src/modules/jobs/dead-letters.service.ts).
 */
export type DeadLetter = typeof deadLetters.$inferSelect;

/** What a writer says of a dead letter; id and time are stamped here. */
export interface NewDeadLetter {
  /** the queue it belongs to (local name, e.g. "webhooks"); a replay sends it back there */
  queue: string;
  /** unique: a second dead letter with the same id is ignored (redelivery, a retried final attempt) */
  messageId: string;
  body: unknown;
  attempts: number;
}

/** The message id of a webhook delivery that used up its schedule (no queue message: replayed as a redelivery). */
export const webhookDeliveryMessageId = (deliveryId: string) => `${WEBHOOK_DELIVERY}${deliveryId}`;
const WEBHOOK_DELIVERY = "webhook-delivery:";
export const isWebhookDeliveryDeadLetter = (row: Pick<DeadLetter, "messageId">) =>
  row.messageId.startsWith(WEBHOOK_DELIVERY);

/** Stores dead letters, idempotent by message id (a redelivered or retried one adds nothing). */
export async function recordDeadLetters(env: Env, letters: NewDeadLetter[], createdAt = nowIso()): Promise<void> {
  const db = controlDb(env);
  const rows = letters.map((l) => ({ id: newId(), ...l, body: l.body ?? null, createdAt }));
  const statements = chunkRows(deadLetters, rows).map((chunk) =>
    db.insert(deadLetters).values(chunk).onConflictDoNothing({ target: deadLetters.messageId }),
  );
  if (statements.length) await db.batch(statements as [(typeof statements)[0], ...typeof statements]);
}

const isText = (b: Record<string, unknown>, ...keys: string[]) => keys.every((k) => typeof b[k] === "string");

/**
 * Every queue dead-letters into the one `dead-letter` queue, whose batches do not say where a message
 * came from; each queue's message contract does. Unknown shapes keep the dead-letter queue's name.
 */
export function originQueue(body: unknown): string | null {
  if (!body || typeof body !== "object") return null;
  const b = body as Record<string, unknown>;
  if (Array.isArray(b.clicks)) return "clicks";
  if (isText(b, "tenantId", "integrationId")) return "review-sync";
  if (isText(b, "tenantId", "jobId", "type")) return "jobs";
  if (isText(b, "tenantId", "deliveryId")) return "webhooks";
  if (isText(b, "id", "type", "tenantId", "occurredAt")) return "events";
  if (b.kind === "rollup_rebuild") return "events"; // the analytics' delayed rebuild (src/modules/analytics/rebuild-later.ts)
  if (b.kind === "tenant_move") return "jobs"; // a tenant move's next slice (src/modules/admin/background.ts)
  if (isText(b, "solicitationId") && Object.keys(b).length === 1) return "sends";
  return null;
}

/** The `dead-letter` queue's consumer: stores exhausted messages to inspect and count; redelivery is harmless. */
export async function consumeDeadLetters(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  await recordDeadLetters(
    env,
    batch.messages.map((m) => ({
      queue: originQueue(m.body) ?? batch.queue,
      messageId: m.id,
      body: m.body,
      attempts: m.attempts,
    })),
  );
  batch.ackAll();
}

/** Newest first, with the total, optionally of one queue. */
export async function listDeadLetters(
  control: ControlDb,
  q: PageQuery & { queue?: string },
): Promise<Page<DeadLetter>> {
  const where = and(q.queue ? eq(deadLetters.queue, q.queue) : undefined);
  return keysetPage(control, {
    query: q,
    sort: [deadLetters.createdAt, deadLetters.id],
    rows: (cursor, order, limit) =>
      control
        .select()
        .from(deadLetters)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: control.select({ n: count() }).from(deadLetters).where(where),
    key: (r) => [r.createdAt, r.id],
    map: (r) => r,
  });
}

export const deadLetterById = (control: ControlDb, id: string) =>
  control.select().from(deadLetters).where(eq(deadLetters.id, id)).get();

/** The statement that removes a replayed dead letter (it goes in the replay's audited batch). */
export const deleteDeadLetter = (control: ControlDb, id: string) =>
  control.delete(deadLetters).where(eq(deadLetters.id, id));

/** Dead letters per queue since the instant (GET /admin/status). */
export async function deadLettersPerQueueSince(control: ControlDb, since: string): Promise<Map<string, number>> {
  const rows = await control
    .select({ queue: deadLetters.queue, n: count() })
    .from(deadLetters)
    .where(gte(deadLetters.createdAt, since))
    .groupBy(deadLetters.queue);
  return new Map(rows.map((r) => [r.queue, r.n]));
}
