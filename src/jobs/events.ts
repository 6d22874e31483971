import { and, lt, sql } from "drizzle-orm";
import { createDb } from "../db/client";
import { processedEvents } from "../db/schema";
import type { Env } from "../env";
import { backoffSeconds } from "../lib/backoff";
import type { EventEnvelope } from "../lib/events";
import { nowIso } from "../lib/time";
import { CRONS, registerSweep } from "./cron";
import { registerQueueConsumer } from "./queue";

/**
 * A subscriber to domain events (webhook delivery, automation rules, analytics rollups, ...).
 * Handlers run at least once per event; each success is recorded, so a redelivered event only
 * re-runs the handlers that failed. A handler must tolerate running twice if it crashes mid-way.
 */
export interface EventHandler {
  name: string;
  handle(event: EventEnvelope, env: Env): Promise<void>;
}

const handlers: EventHandler[] = [];

export const registerEventHandler = (h: EventHandler) => {
  if (!handlers.some((x) => x.name === h.name)) handlers.push(h);
};

const MARK_ROWS_PER_INSERT = Math.floor(100 / 3); // D1: 100 bound parameters, 3 columns

export async function consumeEvents(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const db = createDb(env.DB);
  const events = batch.messages.map((m) => m.body as EventEnvelope);
  // one read for the whole batch: which handlers already processed which event
  const done = new Set(
    (
      await db
        .select({ eventId: processedEvents.eventId, handler: processedEvents.handler })
        .from(processedEvents)
        .where(sql`${processedEvents.eventId} in (select value from json_each(${JSON.stringify(events.map((e) => e.id))}))`)
    ).map((r) => `${r.eventId}|${r.handler}`),
  );
  const marks: (typeof processedEvents.$inferInsert)[] = [];
  const failed = new Set<number>();
  for (const [i, event] of events.entries()) {
    for (const h of handlers) {
      if (done.has(`${event.id}|${h.name}`)) continue;
      try {
        await h.handle(event, env);
        marks.push({ eventId: event.id, handler: h.name, processedAt: nowIso() });
        // the same event twice in one batch (a re-dispatch by the stale-event sweep): once is enough
        done.add(`${event.id}|${h.name}`);
      } catch (err) {
        failed.add(i);
        console.error(JSON.stringify({ level: "error", message: "event handler failed", handler: h.name, eventId: event.id, type: event.type, error: String(err) }));
      }
    }
  }
  // marks first, then acks: a crash in between only means a redelivery that skips the done handlers
  const inserts = [];
  for (let i = 0; i < marks.length; i += MARK_ROWS_PER_INSERT) {
    inserts.push(db.insert(processedEvents).values(marks.slice(i, i + MARK_ROWS_PER_INSERT)).onConflictDoNothing());
  }
  if (inserts.length) await db.batch(inserts as [(typeof inserts)[0], ...typeof inserts]);
  batch.messages.forEach((message, i) => {
    if (failed.has(i)) message.retry({ delaySeconds: backoffSeconds(message.attempts) });
    else message.ack();
  });
}

registerQueueConsumer("events", consumeEvents);

registerSweep(CRONS.daily, {
  name: "purge-processed-events",
  // queue redelivery happens within hours; a week of bookkeeping is plenty
  run: async (env, now) => {
    const cutoff = new Date(now.getTime() - 7 * 24 * 3600 * 1000).toISOString();
    await createDb(env.DB).delete(processedEvents).where(and(lt(processedEvents.processedAt, cutoff)));
  },
});
