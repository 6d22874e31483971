import { and, eq } from "drizzle-orm";
import { createDb } from "../../db/client";
import { reviews, solicitations } from "../../db/schema";
import type { Env } from "../../env";
import type { EventEnvelope } from "../../lib/events";
import { dayOf } from "./dates";
import { recomputeFunnel, recomputeResponses, recomputeReviews } from "./rollups";

const str = (v: unknown) => (typeof v === "string" && v ? v : null);

/**
 * EVENTS handler: recomputes the one location-day each event touches from the source rows. Running it
 * twice (redelivery, or a crash after the write) gives the same rows, so it is idempotent by design.
 * A review's rollups are keyed by occurredAt (reviews) and createdAt (responses); a solicitation's by
 * its createdAt.
 */
export async function applyEventToRollups(event: EventEnvelope, env: Env): Promise<void> {
  const db = createDb(env.DB);
  const tenantId = event.tenantId;
  if (event.type.startsWith("solicitation.")) {
    const id = str(event.data.solicitationId);
    if (!id) return;
    const s = await db
      .select({ locationId: solicitations.locationId, createdAt: solicitations.createdAt })
      .from(solicitations)
      .where(and(eq(solicitations.id, id), eq(solicitations.tenantId, tenantId)))
      .get();
    if (!s) return;
    const day = dayOf(s.createdAt);
    await recomputeFunnel(db, { tenantId, from: day, to: day, locationId: s.locationId });
    return;
  }
  if (event.type === "review.created" || event.type === "review.updated" || event.type === "response.published") {
    const id = str(event.data.reviewId);
    if (!id) return;
    const row = await db
      .select({ locationId: reviews.locationId, occurredAt: reviews.occurredAt, createdAt: reviews.createdAt })
      .from(reviews)
      .where(and(eq(reviews.id, id), eq(reviews.tenantId, tenantId)))
      .get();
    if (!row) return;
    if (event.type !== "response.published") {
      const day = dayOf(row.occurredAt);
      await recomputeReviews(db, { tenantId, from: day, to: day, locationId: row.locationId });
    }
    const arrival = dayOf(row.createdAt);
    await recomputeResponses(db, { tenantId, from: arrival, to: arrival, locationId: row.locationId });
  }
}
