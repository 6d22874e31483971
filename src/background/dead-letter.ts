import { controlDb } from "../db/shards";
import { deadLetters } from "../db/schema";
import type { Env } from "../env";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { chunkRows } from "../lib/sql";

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
  if (isText(b, "solicitationId") && Object.keys(b).length === 1) return "sends";
  return null;
}

/** Stores exhausted messages so they can be inspected and counted; redelivery is harmless. */
export async function consumeDeadLetters(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  // dead letters are control-plane rows (docs/scaling.md)
  const db = controlDb(env);
  const now = nowIso();
  const rows = batch.messages.map((m) => ({
    id: newId(),
    queue: originQueue(m.body) ?? batch.queue,
    messageId: m.id,
    body: m.body ?? null,
    attempts: m.attempts,
    createdAt: now,
  }));
  const statements = chunkRows(deadLetters, rows).map((chunk) => db.insert(deadLetters).values(chunk).onConflictDoNothing({ target: deadLetters.messageId }));
  if (statements.length) await db.batch(statements as [(typeof statements)[0], ...typeof statements]);
  batch.ackAll();
}
