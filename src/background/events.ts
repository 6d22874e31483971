import { and, inArray, isNotNull, lt } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { ShardDb } from "../db/client";
import { domainEvents, processedEvents } from "../db/schema";
import type { Env } from "../env";
import { backoffSeconds } from "../lib/backoff";
import { dispatchStaleEvents, type EventEnvelope, markable } from "../lib/events";
import { log } from "../lib/log";
import { chunkRows, inJson } from "../lib/sql";
import { nowIso } from "../lib/time";
import type { ShardConsumer, ShardSweep } from "./shards";

/**
 * A subscriber to domain events (webhook delivery, automation rules, analytics rollups, ...).
 * Handlers run at least once per event; each success is recorded, so a redelivered event only
 * re-runs the handlers that failed. A handler must tolerate running twice if it crashes mid-way.
 * A queue batch holds up to 100 events, often of one tenant and one kind (a campaign send), so a
 * handler may work per batch: `select` reads once what the batch's tenants subscribe to and drops
 * the events that concern nobody, and `handleBatch` replaces `handle` where work coalesces (one
 * rollup per location-day, not one per event). Every call is handed the batch's shard (`shard`),
 * where the events' tenants live; the control plane is `controlDb(env)`.
 */
export interface EventHandler {
  name: string;
  /** one read for the whole batch: which events this handler has anything to do for */
  select?(events: EventEnvelope[], env: Env, shard: ShardDb): Promise<(event: EventEnvelope) => boolean>;
  handle?(event: EventEnvelope, env: Env, shard: ShardDb): Promise<void>;
  /** the batch's events at once; a throw retries them all */
  handleBatch?(events: EventEnvelope[], env: Env, shard: ShardDb): Promise<void>;
}

/** A handler's name keys its processed_events marks: it must be unique and never change. */
function checkHandlers(handlers: EventHandler[]) {
  const names = new Set<string>();
  for (const h of handlers) {
    if (!h.handle === !h.handleBatch) throw new Error(`event handler ${h.name}: give handle or handleBatch`);
    if (names.has(h.name)) throw new Error(`event handler ${h.name}: the name is taken`);
    names.add(h.name);
  }
}

const logFailure = (h: EventHandler, events: EventEnvelope[], err: unknown) =>
  log.error("event handler failed", {
    handler: h.name,
    eventIds: events.map((e) => e.id),
    types: [...new Set(events.map((e) => e.type))],
    error: String(err),
  });

/** Runs one handler over the batch's events it has not processed yet; returns the ids it failed. */
async function runHandler(
  h: EventHandler,
  events: EventEnvelope[],
  env: Env,
  shard: ShardDb,
  processed: (e: EventEnvelope) => void,
): Promise<EventEnvelope[]> {
  let wanted = events;
  if (h.select) {
    try {
      const concerns = await h.select(events, env, shard);
      wanted = events.filter(concerns);
    } catch (err) {
      logFailure(h, events, err);
      return events;
    }
  }
  if (h.handleBatch) {
    if (!wanted.length) return [];
    try {
      await h.handleBatch(wanted, env, shard);
      wanted.forEach(processed);
      return [];
    } catch (err) {
      logFailure(h, wanted, err);
      return wanted;
    }
  }
  const failed: EventEnvelope[] = [];
  for (const event of wanted) {
    try {
      await h.handle!(event, env, shard);
      processed(event);
    } catch (err) {
      logFailure(h, [event], err);
      failed.push(event);
    }
  }
  return failed;
}

/** The EVENTS consumer over the given handlers (the composition root's table, src/wiring.ts). */
export function eventsConsumer(handlers: EventHandler[]): ShardConsumer {
  checkHandlers(handlers);
  return (batch, env, shard) => consumeEvents(handlers, batch, env, shard);
}

async function consumeEvents(
  handlers: EventHandler[],
  batch: MessageBatch<unknown>,
  env: Env,
  db: ShardDb,
): Promise<void> {
  const events = batch.messages.map((m) => m.body as EventEnvelope);
  // one read for the whole batch: which handlers already processed which event
  const done = new Set(
    (
      await db
        .select({ eventId: processedEvents.eventId, handler: processedEvents.handler })
        .from(processedEvents)
        .where(
          inJson(
            processedEvents.eventId,
            events.map((e) => e.id),
          ),
        )
    ).map((r) => `${r.eventId}|${r.handler}`),
  );
  const marks: (typeof processedEvents.$inferInsert)[] = [];
  const failed = new Set<string>();
  // the same event twice in one batch (a re-dispatch by the stale-event sweep): handled once
  const distinct = [...new Map(events.map((e) => [e.id, e])).values()];
  for (const h of handlers) {
    const todo = distinct.filter((e) => !done.has(`${e.id}|${h.name}`));
    if (!todo.length) continue;
    const mark = (e: EventEnvelope) =>
      marks.push({ eventId: e.id, handler: h.name, tenantId: e.tenantId, processedAt: nowIso() });
    for (const e of await runHandler(h, todo, env, db, mark)) failed.add(e.id);
  }
  // marks first, then acks: a crash in between only means a redelivery that skips the done handlers.
  // Receiving an event is what marks it dispatched in the outbox (the hand-off after a commit does not).
  const writes: BatchItem<"sqlite">[] = [
    db
      .update(domainEvents)
      .set({ dispatchedAt: nowIso() })
      .where(markable(distinct.map((e) => e.id))),
  ];
  for (const chunk of chunkRows(processedEvents, marks))
    writes.push(db.insert(processedEvents).values(chunk).onConflictDoNothing());
  await db.batch(writes as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  batch.messages.forEach((message, i) => {
    if (failed.has(events[i]!.id)) message.retry({ delaySeconds: backoffSeconds(message.attempts) });
    else message.ack();
  });
}

/** The outbox's safety net: events committed but never handed to the queue (the isolate died first). */
export const dispatchStaleEventsSweep: ShardSweep = {
  name: "dispatch-stale-events",
  run: (env, shard) => dispatchStaleEvents(shard, env).then(() => undefined),
};

export const purgeProcessedEventsSweep: ShardSweep = {
  name: "purge-processed-events",
  // queue redelivery happens within hours; a week of bookkeeping is plenty
  run: async (_env, shard, now) => {
    const cutoff = new Date(now.getTime() - 7 * 24 * 3600 * 1000).toISOString();
    await shard.delete(processedEvents).where(and(lt(processedEvents.processedAt, cutoff)));
  },
};

/**
 * Domain events are an outbox: once dispatched and older than anything a queue can still redeliver
 * (Queues keep a message at most 14 days), nothing reads them. Left alone they were a third of a
 * sent review request's bytes on its shard (docs/capacity.md).
 */
export const DISPATCHED_EVENT_TTL_DAYS = 14;
const PURGE_CHUNK = 2_000;
const PURGE_MAX_CHUNKS = 100;

export async function purgeDispatchedEvents(db: ShardDb, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - DISPATCHED_EVENT_TTL_DAYS * 24 * 3600 * 1000).toISOString();
  let purged = 0;
  // bounded chunks on the (dispatched_at, occurred_at) index: each delete stays far below D1's 30 s
  for (let i = 0; i < PURGE_MAX_CHUNKS; i++) {
    const due = db
      .select({ id: domainEvents.id })
      .from(domainEvents)
      .where(and(isNotNull(domainEvents.dispatchedAt), lt(domainEvents.dispatchedAt, cutoff)))
      .limit(PURGE_CHUNK);
    const { meta } = await db.delete(domainEvents).where(inArray(domainEvents.id, due)).run();
    purged += meta.changes ?? 0;
    if ((meta.changes ?? 0) < PURGE_CHUNK) break;
  }
  return purged;
}

export const purgeDispatchedEventsSweep: ShardSweep = {
  name: "purge-dispatched-events",
  run: (_env, shard, now) => purgeDispatchedEvents(shard, now).then(() => undefined),
};
