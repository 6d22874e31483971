import { and, asc, isNull, lt } from "drizzle-orm";
import type { Db } from "../db/client";
import { domainEvents } from "../db/schema";
import type { Env } from "../env";
import type { ServiceContext } from "./context";
import type { EventType } from "./event-catalogue";
import { newId } from "./ids";
import { inJson } from "./sql";
import { nowIso } from "./time";

// One list of event types: the payload catalogue's keys (lib/event-catalogue.ts).
export { EVENT_TYPES, type EventType } from "./event-catalogue";

/** What goes on the EVENTS queue: the id is stable, so consumers dedupe on it. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  tenantId: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

/**
 * The outbox insert for one event, to run in the same db.batch as the change. Pass it to
 * `commit(ctx, statements, events)` (lib/commit.ts), whose handOffEvents sends it to the queue right
 * after the batch; the dispatch-stale-events sweep sends any the isolate did not get to.
 */
export function eventStatement(
  ctx: Pick<ServiceContext, "db" | "tenantId">,
  type: EventType,
  data: Record<string, unknown>,
) {
  const event: EventEnvelope = { id: `evt_${newId()}`, type, tenantId: ctx.tenantId, occurredAt: nowIso(), data };
  return { event, statement: ctx.db.insert(domainEvents).values({ ...event, dispatchedAt: null }) };
}

const SEND_BATCH = 100; // Queues: sendBatch takes at most 100 messages

/**
 * Sends the given (or all pending) outbox events that are not dispatched yet: reads them, sends
 * them and marks them dispatched, so a later sweep does not send them again while the consumer is
 * behind. For events that may exist already (deterministic ids) and sweeps.
 */
export async function dispatchEvents(db: Db, env: Env, ids?: string[]): Promise<number> {
  const pending = await db
    .select()
    .from(domainEvents)
    .where(and(isNull(domainEvents.dispatchedAt), ids ? inJson(domainEvents.id, ids) : undefined))
    .orderBy(asc(domainEvents.occurredAt))
    .limit(ids ? ids.length : 500);
  if (!pending.length) return 0;
  await enqueueEvents(
    env,
    pending.map((e) => ({ ...e, type: e.type as EventType })),
  );
  await db
    .update(domainEvents)
    .set({ dispatchedAt: nowIso() })
    .where(markable(pending.map((e) => e.id)));
  return pending.length;
}

/**
 * The after-commit hand-off: sends events the caller has just committed to the EVENTS queue,
 * without reading them back or marking them: the events consumer marks them dispatched when it
 * receives them (in the batch it writes anyway), so a write costs no D1 round trip after its commit.
 * Should the stale-event sweep send one too, it goes twice: consumers dedupe on its id.
 */
export async function enqueueEvents(env: Env, events: EventEnvelope[]): Promise<void> {
  for (let i = 0; i < events.length; i += SEND_BATCH) {
    await env.EVENTS.sendBatch(
      events.slice(i, i + SEND_BATCH).map((e) => ({
        body: {
          id: e.id,
          type: e.type,
          tenantId: e.tenantId,
          occurredAt: e.occurredAt,
          data: e.data,
        } satisfies EventEnvelope,
      })),
    );
  }
}

/** The events of `ids` not marked dispatched yet (the first mark stays). */
export const markable = (ids: string[]) => and(inJson(domainEvents.id, ids), isNull(domainEvents.dispatchedAt));

/**
 * How long an event may stay unmarked before the sweep sends it again: longer than the EVENTS
 * consumer normally takes to receive it (seconds; minutes behind a large campaign), so the sweep
 * only re-sends hand-offs that were really lost (the isolate died between commit and send).
 */
export const STALE_EVENT_MS = 10 * 60_000;

/** Sweep: events whose after-commit hand-off did not happen (isolate died) are sent now. */
export async function dispatchStaleEvents(db: Db, env: Env, olderThanMs = STALE_EVENT_MS): Promise<number> {
  const cutoff = new Date(Date.now() - olderThanMs).toISOString();
  const stale = await db
    .select({ id: domainEvents.id })
    .from(domainEvents)
    .where(and(isNull(domainEvents.dispatchedAt), lt(domainEvents.occurredAt, cutoff)))
    .limit(500);
  return stale.length
    ? dispatchEvents(
        db,
        env,
        stale.map((s) => s.id),
      )
    : 0;
}
