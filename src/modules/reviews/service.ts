import { and, count, eq, gte, lt, lte } from "drizzle-orm";
import { reviews } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { isUniqueViolation } from "../../lib/db-errors";
import { notFound } from "../../lib/errors";
import { keysetPage } from "../../lib/pagination";
import { nowIso } from "../../lib/time";
import { assertLocationRefs } from "../locations/refs";
import { type IngestReviewInput, type ReviewListInput, type ReviewRow, toReview } from "./schemas";
import { findByExternalIds, prepareReview } from "./upsert";

export async function listReviews(ctx: ServiceContext, q: ReviewListInput) {
  const nextDay = (d: string) => new Date(Date.parse(`${d}T00:00:00.000Z`) + 86_400_000).toISOString();
  const where = and(
    eq(reviews.tenantId, ctx.tenantId),
    q.locationId ? eq(reviews.locationId, q.locationId) : undefined,
    q.siteType ? eq(reviews.siteType, q.siteType) : undefined,
    q.sentiment ? eq(reviews.sentiment, q.sentiment) : undefined,
    q.status ? eq(reviews.status, q.status) : undefined,
    q.isFirstParty === undefined ? undefined : eq(reviews.isFirstParty, q.isFirstParty),
    q.ratingMin !== undefined ? gte(reviews.rating, q.ratingMin) : undefined,
    q.ratingMax !== undefined ? lte(reviews.rating, q.ratingMax) : undefined,
    q.dateFrom ? gte(reviews.occurredAt, `${q.dateFrom}T00:00:00.000Z`) : undefined,
    q.dateTo ? lt(reviews.occurredAt, nextDay(q.dateTo)) : undefined,
  );
  return keysetPage(ctx.db, {
    query: q,
    sort: [reviews.occurredAt, reviews.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(reviews)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(reviews).where(where),
    key: (r) => [r.occurredAt, r.id],
    map: toReview,
  });
}

export async function findReviewRow(ctx: ServiceContext, id: string): Promise<ReviewRow> {
  const row = await ctx.db
    .select()
    .from(reviews)
    .where(and(eq(reviews.id, id), eq(reviews.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Review");
  return row;
}

export const getReview = async (ctx: ServiceContext, id: string) => toReview(await findReviewRow(ctx, id));

/**
 * Stores a review; the same (siteType, externalReviewId) again updates it instead of adding a
 * duplicate. Returns whether it was created (201) or updated (200).
 */
export async function ingestReview(
  ctx: ServiceContext,
  input: IngestReviewInput,
  attempt = 1,
): Promise<{ review: ReturnType<typeof toReview>; created: boolean }> {
  await assertLocationRefs(ctx, [input.locationId]);
  const existing = input.externalReviewId
    ? (await findByExternalIds(ctx, input.siteType, [input.externalReviewId])).get(input.externalReviewId)
    : undefined;
  const p = await prepareReview(ctx, input, existing, nowIso());
  if (!p.changed) return { review: toReview(p.row), created: false };
  try {
    await commit(
      ctx,
      [
        ...p.statements,
        auditStatement(ctx, {
          tenantId: ctx.tenantId,
          action: p.created ? "review.created" : "review.updated",
          resourceType: "review",
          resourceId: p.row.id,
          previousState: existing ?? null,
          nextState: p.row,
        }),
      ],
      p.events,
    );
  } catch (e) {
    // the same external review ingested concurrently: the other insert won, so this becomes an update
    if (isUniqueViolation(e) && p.created && attempt === 1) return ingestReview(ctx, input, 2);
    throw e;
  }
  return { review: toReview(p.row), created: p.created };
}
