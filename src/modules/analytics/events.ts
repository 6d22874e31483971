import { and, eq } from "drizzle-orm";
import { createDb, type Db } from "../../db/client";
import { reviews, solicitations } from "../../db/schema";
import type { Env } from "../../env";
import type { EventEnvelope } from "../../lib/events";
import { dayOf } from "./dates";
import { inJson } from "../../lib/sql";
import { recomputeFunnel, recomputeResponses, recomputeReviews, type RollupScope } from "./rollups";

const str = (v: unknown) => (typeof v === "string" && v ? v : null);

const RECOMPUTE: Record<"funnel" | "reviews" | "responses", (db: Db, s: RollupScope) => Promise<void>> = {
  funnel: recomputeFunnel,
  reviews: recomputeReviews,
  responses: recomputeResponses,
};
type Rollup = keyof typeof RECOMPUTE;

const REVIEW_EVENTS = new Set(["review.created", "review.updated", "response.published"]);

/** Ids named by the events of each tenant (events never reach across tenants). */
function idsByTenant(events: EventEnvelope[], field: string): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const e of events) {
    const id = str(e.data[field]);
    if (id) m.set(e.tenantId, [...(m.get(e.tenantId) ?? []), id]);
  }
  return m;
}

/**
 * EVENTS handler, per queue batch: finds the location-days the events touch (one read per kind and
 * tenant), then recomputes each once from the source rows. A campaign send's hundred events of one
 * location-day cost one recompute, not a hundred. Running it twice (redelivery, or a crash after
 * the write) gives the same rows, so it is idempotent by design. A review's rollups are keyed by
 * occurredAt (reviews) and createdAt (responses); a solicitation's by its createdAt.
 */
export async function applyEventsToRollups(events: EventEnvelope[], env: Env): Promise<void> {
  const db = createDb(env.DB);
  const work = new Map<string, { rollup: Rollup; scope: RollupScope }>();
  const touch = (rollup: Rollup, tenantId: string, locationId: string, at: string) => {
    const day = dayOf(at);
    work.set(`${rollup}|${tenantId}|${locationId}|${day}`, { rollup, scope: { tenantId, from: day, to: day, locationId } });
  };

  for (const [tenantId, ids] of idsByTenant(events.filter((e) => e.type.startsWith("solicitation.")), "solicitationId")) {
    const rows = await db
      .select({ locationId: solicitations.locationId, createdAt: solicitations.createdAt })
      .from(solicitations)
      .where(and(eq(solicitations.tenantId, tenantId), inJson(solicitations.id, ids)));
    for (const r of rows) touch("funnel", tenantId, r.locationId, r.createdAt);
  }

  const reviewEvents = events.filter((e) => REVIEW_EVENTS.has(e.type));
  const ratingChanged = new Set(reviewEvents.filter((e) => e.type !== "response.published").map((e) => str(e.data.reviewId)));
  for (const [tenantId, ids] of idsByTenant(reviewEvents, "reviewId")) {
    const rows = await db
      .select({ id: reviews.id, locationId: reviews.locationId, occurredAt: reviews.occurredAt, createdAt: reviews.createdAt })
      .from(reviews)
      .where(and(eq(reviews.tenantId, tenantId), inJson(reviews.id, ids)));
    for (const r of rows) {
      if (ratingChanged.has(r.id)) touch("reviews", tenantId, r.locationId, r.occurredAt);
      touch("responses", tenantId, r.locationId, r.createdAt);
    }
  }

  for (const { rollup, scope } of work.values()) await RECOMPUTE[rollup](db, scope);
}

/** One event on its own (tests and replays): the batch path with a batch of one. */
export const applyEventToRollups = (event: EventEnvelope, env: Env) => applyEventsToRollups([event], env);
