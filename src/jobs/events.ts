import { and, eq, lt } from "drizzle-orm";
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

export async function consumeEvents(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const db = createDb(env.DB);
  for (const message of batch.messages) {
    const event = message.body as EventEnvelope;
    const done = new Set(
      (await db.select({ handler: processedEvents.handler }).from(processedEvents).where(eq(processedEvents.eventId, event.id))).map((r) => r.handler),
    );
    let failed = false;
    for (const h of handlers) {
      if (done.has(h.name)) continue;
      try {
        await h.handle(event, env);
        await db.insert(processedEvents).values({ eventId: event.id, handler: h.name, processedAt: nowIso() }).onConflictDoNothing();
      } catch (err) {
        failed = true;
        console.error(JSON.stringify({ level: "error", message: "event handler failed", handler: h.name, eventId: event.id, type: event.type, error: String(err) }));
      }
    }
    if (failed) message.retry({ delaySeconds: backoffSeconds(message.attempts) });
    else message.ack();
  }
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
