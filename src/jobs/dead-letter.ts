import { createDb } from "../db/client";
import { deadLetters } from "../db/schema";
import type { Env } from "../env";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";

const ROWS_PER_INSERT = Math.floor(100 / 6); // D1: 100 bound parameters per statement, 6 columns

/** Stores exhausted messages so they can be inspected and counted; redelivery is harmless. */
export async function consumeDeadLetters(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const db = createDb(env.DB);
  const now = nowIso();
  const rows = batch.messages.map((m) => ({
    id: newId(),
    queue: batch.queue,
    messageId: m.id,
    body: m.body ?? null,
    attempts: m.attempts,
    createdAt: now,
  }));
  const statements = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    statements.push(db.insert(deadLetters).values(rows.slice(i, i + ROWS_PER_INSERT)).onConflictDoNothing({ target: deadLetters.messageId }));
  }
  if (statements.length) await db.batch(statements as [(typeof statements)[0], ...typeof statements]);
  batch.ackAll();
}
