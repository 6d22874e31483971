import { and, asc, avg, count, desc, eq, gte, lt, type SQL } from "drizzle-orm";
import type { ShardDb } from "../../db/client";
import { inboxItems, locations, reviewResponses, reviews } from "../../db/schema";
import type { AlertSubscriptionRow } from "./schemas";

export const LISTED_REVIEWS = 10;
export const LISTED_DUE = 5;

export interface DigestReview {
  id: string;
  locationName: string;
  siteType: string;
  rating: number | null;
  authorName: string | null;
  text: string | null;
  createdAt: string;
}

export interface DigestData {
  locationName: string | null;
  period: { start: string; end: string };
  newReviews: { count: number; averageRating: number | null; listed: DigestReview[] };
  trend: { previousCount: number; previousAverageRating: number | null; change: number | null };
  responsesDue: { unanswered: number; awaitingApproval: number; oldest: DigestReview[] };
  slaBreaches: {
    count: number;
    listed: {
      inboxItemId: string;
      reviewId: string | null;
      locationName: string;
      reason: string | null;
      escalatedAt: string;
    }[];
  };
}

const round = (v: unknown) => (v === null || v === undefined ? null : Math.round(Number(v) * 100) / 100);

/**
 * What a digest reports for one subscription's scope over [start, end): reviews that arrived in
 * the period (arrival, as SLA windows count), the average rating against the period before,
 * what is still unanswered or waiting for approval now, and the SLA escalations of the period.
 * Six small reads in one D1 batch.
 */
export async function digestData(
  db: ShardDb,
  sub: AlertSubscriptionRow,
  period: { start: Date; end: Date },
): Promise<DigestData> {
  const start = period.start.toISOString();
  const end = period.end.toISOString();
  const previousStart = new Date(
    period.start.getTime() - (period.end.getTime() - period.start.getTime()),
  ).toISOString();
  const inScope = (col: typeof reviews.locationId | typeof inboxItems.locationId): SQL | undefined =>
    sub.locationId ? eq(col, sub.locationId) : undefined;
  const reviewScope = and(eq(reviews.tenantId, sub.tenantId), inScope(reviews.locationId));
  const reviewColumns = {
    id: reviews.id,
    locationName: locations.name,
    siteType: reviews.siteType,
    rating: reviews.rating,
    authorName: reviews.authorName,
    text: reviews.text,
    createdAt: reviews.createdAt,
  };
  const [current, previous, listed, unanswered, oldest, awaiting, breaches, location] = await db.batch([
    db
      .select({ n: count(), avg: avg(reviews.rating) })
      .from(reviews)
      .where(and(reviewScope, gte(reviews.createdAt, start), lt(reviews.createdAt, end))),
    db
      .select({ n: count(), avg: avg(reviews.rating) })
      .from(reviews)
      .where(and(reviewScope, gte(reviews.createdAt, previousStart), lt(reviews.createdAt, start))),
    db
      .select(reviewColumns)
      .from(reviews)
      .innerJoin(locations, eq(locations.id, reviews.locationId))
      .where(and(reviewScope, gte(reviews.createdAt, start), lt(reviews.createdAt, end)))
      .orderBy(desc(reviews.createdAt), desc(reviews.id))
      .limit(LISTED_REVIEWS),
    db
      .select({ n: count() })
      .from(reviews)
      .where(and(reviewScope, eq(reviews.status, "new"), lt(reviews.createdAt, end))),
    db
      .select(reviewColumns)
      .from(reviews)
      .innerJoin(locations, eq(locations.id, reviews.locationId))
      .where(and(reviewScope, eq(reviews.status, "new"), lt(reviews.createdAt, end)))
      .orderBy(asc(reviews.createdAt), asc(reviews.id))
      .limit(LISTED_DUE),
    db
      .select({ n: count() })
      .from(reviewResponses)
      .innerJoin(reviews, eq(reviews.id, reviewResponses.reviewId))
      .where(
        and(
          eq(reviewResponses.tenantId, sub.tenantId),
          eq(reviewResponses.status, "submitted"),
          inScope(reviews.locationId),
        ),
      ),
    db
      .select({
        inboxItemId: inboxItems.id,
        reviewId: inboxItems.reviewId,
        locationName: locations.name,
        reason: inboxItems.escalationReason,
        escalatedAt: inboxItems.escalatedAt,
      })
      .from(inboxItems)
      .innerJoin(locations, eq(locations.id, inboxItems.locationId))
      .where(
        and(
          eq(inboxItems.tenantId, sub.tenantId),
          inScope(inboxItems.locationId),
          gte(inboxItems.escalatedAt, start),
          lt(inboxItems.escalatedAt, end),
        ),
      )
      .orderBy(asc(inboxItems.escalatedAt))
      .limit(50),
    db
      .select({ name: locations.name })
      .from(locations)
      .where(eq(locations.id, sub.locationId ?? "")),
  ]);
  const averageRating = round(current[0]?.avg);
  const previousAverageRating = round(previous[0]?.avg);
  return {
    locationName: location[0]?.name ?? null,
    period: { start, end },
    newReviews: { count: current[0]?.n ?? 0, averageRating, listed },
    trend: {
      previousCount: previous[0]?.n ?? 0,
      previousAverageRating,
      change:
        averageRating !== null && previousAverageRating !== null ? round(averageRating - previousAverageRating) : null,
    },
    responsesDue: { unanswered: unanswered[0]?.n ?? 0, awaitingApproval: awaiting[0]?.n ?? 0, oldest },
    slaBreaches: { count: breaches.length, listed: breaches.map((b) => ({ ...b, escalatedAt: b.escalatedAt! })) },
  };
}
