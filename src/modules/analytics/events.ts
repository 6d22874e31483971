import type { Db, ShardDb } from "../../db/client";
import { reviews, solicitations } from "../../db/schema";
import type { Env } from "../../env";
import type { EventEnvelope } from "../../lib/events";
import { inJson } from "../../lib/sql";
import {
  markBuilt,
  type Rollup,
  type RollupWork,
  rebuildIntervalMs,
  touchAndPickDue,
  uncoveredCells,
  type WaitingCell,
  workKey,
} from "./cells";
import { dayOf } from "./dates";
import { cellsOf, type RollupRebuildMessage, scheduleRebuild } from "./rebuild-later";
import {
  atomically,
  dueExpression,
  funnelStatements,
  type RollupCell,
  responseStatements,
  reviewStatements,
} from "./rollups";

const str = (v: unknown) => (typeof v === "string" && v ? v : null);

const REVIEW_EVENTS = new Set(["review.created", "review.updated", "response.published"]);

/** Cells rebuilt per D1 batch (a busy location-day has hundreds of source rows). */
export const CELLS_PER_BATCH = 5;

/** id named in `data[field]` -> the tenant whose event named it */
function tenantById(events: EventEnvelope[], field: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const e of events) {
    const id = str(e.data[field]);
    if (id) m.set(id, e.tenantId);
  }
  return m;
}

/**
 * EVENTS handler, per queue batch: finds the location-days (cells) the events touch, with one read
 * per source table, marks them dirty, and rebuilds the dirty cells that are due (never built, or
 * built over ROLLUP_REBUILD_SECONDS ago; this batch's and any an earlier batch left) CELLS_PER_BATCH
 * at a time, a statement pair per rollup and batch however many tenants, locations and days the
 * cells span. A hot location-day is rebuilt once per interval however many batches touch it, so a
 * rollup lags its source by at most the interval: the touched cells left dirty get one delayed
 * rebuild message per batch (rebuild-later.ts), due when their interval has passed, so a quiet
 * tenant's last events need no later batch (the 5-minute sweep is the backstop). A row only counts
 * for the tenant whose event named it. A rebuild recomputes from the source rows, so running it
 * twice gives the same rows (idempotent by design). A review's rollups are keyed by occurredAt
 * (reviews) and createdAt (responses); a solicitation's by its createdAt.
 */
export async function applyEventsToRollups(events: EventEnvelope[], env: Env, db: ShardDb): Promise<void> {
  const cells: Record<Rollup, Map<string, RollupCell>> = {
    funnel: new Map(),
    reviews: new Map(),
    responses: new Map(),
  };
  const touch = (into: Map<string, RollupCell>, tenantId: string, locationId: string, at: string) => {
    const day = dayOf(at);
    into.set(`${tenantId}|${locationId}|${day}`, { tenantId, locationId, day });
  };

  const solicitationTenants = tenantById(
    events.filter((e) => e.type.startsWith("solicitation.")),
    "solicitationId",
  );
  const reviewEvents = events.filter((e) => REVIEW_EVENTS.has(e.type));
  const reviewTenants = tenantById(reviewEvents, "reviewId");
  const ratingChanged = new Set(
    reviewEvents.filter((e) => e.type !== "response.published").map((e) => str(e.data.reviewId)),
  );
  const [solicitationRows, reviewRows] = await Promise.all([
    solicitationTenants.size
      ? db
          .select({
            id: solicitations.id,
            tenantId: solicitations.tenantId,
            locationId: solicitations.locationId,
            createdAt: solicitations.createdAt,
          })
          .from(solicitations)
          .where(inJson(solicitations.id, [...solicitationTenants.keys()]))
      : [],
    reviewTenants.size
      ? db
          .select({
            id: reviews.id,
            tenantId: reviews.tenantId,
            locationId: reviews.locationId,
            occurredAt: reviews.occurredAt,
            createdAt: reviews.createdAt,
          })
          .from(reviews)
          .where(inJson(reviews.id, [...reviewTenants.keys()]))
      : [],
  ]);
  for (const r of solicitationRows)
    if (solicitationTenants.get(r.id) === r.tenantId) touch(cells.funnel, r.tenantId, r.locationId, r.createdAt);
  for (const r of reviewRows) {
    if (reviewTenants.get(r.id) !== r.tenantId) continue;
    if (ratingChanged.has(r.id)) touch(cells.reviews, r.tenantId, r.locationId, r.occurredAt);
    touch(cells.responses, r.tenantId, r.locationId, r.createdAt);
  }

  const touched = (Object.entries(cells) as [Rollup, Map<string, RollupCell>][]).flatMap(([rollup, m]) =>
    [...m.values()].map((cell) => ({ rollup, cell })),
  );
  const now = Date.now();
  const interval = rebuildIntervalMs(env);
  const { due, waiting } = await touchAndPickDue(db, touched, new Date(now - interval).toISOString());
  await rebuildCells(db, due, new Date(now).toISOString());
  await scheduleRebuild(env, waiting, interval, now);
}

/**
 * The delayed rebuild (EVENTS messages of kind `rollup_rebuild`, all of a queue batch at once): of
 * the cells named, rebuilds those whose named touch no rebuild has covered yet and that are due. A
 * cell covered meanwhile (by the sweep, another batch or an earlier delivery of the message) is left
 * alone: a touch after that rebuild came with a message of its own. A cell not due yet (the message
 * came early, or another rebuild came in between without covering it) is rescheduled once; after
 * that it is left to a later batch or the sweep.
 */
export async function rebuildWaitingCells(messages: RollupRebuildMessage[], env: Env, db: ShardDb): Promise<void> {
  // a cell named by several messages: the highest touch count, and the fewest reschedules so far
  const named = new Map<string, WaitingCell & { round: number }>();
  for (const m of messages)
    for (const c of cellsOf(m)) {
      const key = workKey(c);
      const seen = named.get(key);
      named.set(key, {
        ...c,
        version: Math.max(c.version, seen?.version ?? 0),
        round: Math.min(m.round, seen?.round ?? m.round),
      });
    }
  const now = Date.now();
  const interval = rebuildIntervalMs(env);
  const dueBy = new Date(now - interval).toISOString();
  const open = await uncoveredCells(db, [...named.values()]);
  const isDue = (c: WaitingCell) => c.builtAt === null || c.builtAt <= dueBy;
  await rebuildCells(
    db,
    open.filter(isDue).map(({ rollup, cell }) => ({ rollup, cell })),
    new Date(now).toISOString(),
  );
  const roundOf = (c: WaitingCell) => named.get(workKey(c))!.round;
  await scheduleRebuild(
    env,
    open.filter((c) => !isDue(c) && roundOf(c) === 0),
    interval,
    now,
    1,
  );
}

/**
 * Rebuilds the cells and records each as built, in small atomic batches: each is one synchronous
 * SQLite transaction, and a local workerd runs it on the thread that serves requests (a hundred hot
 * cells at once held every request for 24-38 ms).
 */
export async function rebuildCells(db: Db, todo: RollupWork[], at: string): Promise<void> {
  const responseTenants = [...new Set(todo.filter((t) => t.rollup === "responses").map((t) => t.cell.tenantId))];
  const due = responseTenants.length ? await dueExpression(db, responseTenants) : undefined;
  for (let i = 0; i < todo.length; i += CELLS_PER_BATCH) {
    const chunk = todo.slice(i, i + CELLS_PER_BATCH);
    const of = (rollup: Rollup) => chunk.filter((t) => t.rollup === rollup).map((t) => t.cell);
    const [funnel, reviewed, responded] = [of("funnel"), of("reviews"), of("responses")];
    await atomically(db, [
      ...(funnel.length ? funnelStatements(db, funnel) : []),
      ...(reviewed.length ? reviewStatements(db, reviewed) : []),
      ...(responded.length ? await responseStatements(db, responded, due) : []),
      markBuilt(chunk, at),
    ]);
  }
}

/** Sweep: every dirty cell, whoever touched it last (a burst's last touches wait for no further batch). */
export async function flushDirtyCells(_env: Env, db: ShardDb, rounds = 10): Promise<number> {
  let rebuilt = 0;
  for (let i = 0; i < rounds; i++) {
    const at = new Date().toISOString();
    const { due: todo } = await touchAndPickDue(db, [], at);
    if (!todo.length) break;
    await rebuildCells(db, todo, at);
    rebuilt += todo.length;
  }
  return rebuilt;
}

/** One event on its own (tests and replays): the batch path with a batch of one. */
export const applyEventToRollups = (event: EventEnvelope, env: Env, db: ShardDb) =>
  applyEventsToRollups([event], env, db);
