import { and, count, eq, gte, lt, sql } from "drizzle-orm";
import { reviewLinkClicks, reviewLinks } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { nowIso } from "../../lib/time";
import { CLICK_WINDOW_MS } from "../links/clicks";
import { reviewLinks as siteUrlsOf } from "../links/destinations";
import { loadLocationLinkData } from "../links/location-cache";
import { assertLocationRefs } from "../locations/refs";
import { forgetReviewLink } from "./resolve";
import { type CreateReviewLinkInput, type ReviewLinkRow, toReviewLink, type UpdateReviewLinkInput } from "./schemas";

const inTenant = (ctx: ServiceContext, id: string) =>
  and(eq(reviewLinks.id, id), eq(reviewLinks.tenantId, ctx.tenantId));
const dto = (ctx: ServiceContext, r: ReviewLinkRow) => toReviewLink(r, ctx.env.PUBLIC_BASE_URL);

/** The write-a-review page of each site the location (or its brand) has. Another tenant's location: 404. */
export async function locationReviewUrls(ctx: ServiceContext, locationId: string) {
  const l = await loadLocationLinkData(ctx.db, ctx.tenantId, locationId);
  if (!l) throw notFound("Location");
  const urls = siteUrlsOf(l);
  return {
    locationId,
    googlePlaceId: l.googlePlaceId,
    google: urls.google ?? null,
    yelp: urls.yelp ?? null,
    facebook: urls.facebook ?? null,
  };
}

export async function listReviewLinks(ctx: ServiceContext, q: PageQuery & { locationId?: string }) {
  const where = and(
    eq(reviewLinks.tenantId, ctx.tenantId),
    q.locationId ? eq(reviewLinks.locationId, q.locationId) : undefined,
  );
  return keysetPage(ctx.db, {
    query: q,
    sort: [reviewLinks.createdAt, reviewLinks.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(reviewLinks)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(reviewLinks).where(where),
    key: (r) => [r.createdAt, r.id],
    map: (r) => dto(ctx, r),
  });
}

async function findRow(ctx: ServiceContext, id: string): Promise<ReviewLinkRow> {
  const row = await ctx.db.select().from(reviewLinks).where(inTenant(ctx, id)).get();
  if (!row) throw notFound("Review link");
  return row;
}

export const getReviewLink = async (ctx: ServiceContext, id: string) => dto(ctx, await findRow(ctx, id));

export async function createReviewLink(ctx: ServiceContext, input: CreateReviewLinkInput) {
  await assertLocationRefs(ctx, [input.locationId]);
  const now = nowIso();
  const row: ReviewLinkRow = {
    id: newId(),
    tenantId: ctx.tenantId,
    locationId: input.locationId,
    slug: newId().slice(0, 12),
    name: input.name ?? "Review link",
    weights: input.weights,
    isActive: true,
    createdAt: now,
    updatedAt: now,
  };
  await commit(ctx, [
    ctx.db.insert(reviewLinks).values(row),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "review_link.created",
      resourceType: "review_link",
      resourceId: row.id,
      nextState: row,
    }),
  ]);
  return dto(ctx, row);
}

export async function updateReviewLink(ctx: ServiceContext, id: string, patch: UpdateReviewLinkInput) {
  const before = await findRow(ctx, id);
  const after: ReviewLinkRow = { ...before, ...patch, updatedAt: nowIso() };
  await commit(ctx, [
    ctx.db
      .update(reviewLinks)
      .set({ ...patch, updatedAt: after.updatedAt })
      .where(inTenant(ctx, id)),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "review_link.updated",
      resourceType: "review_link",
      resourceId: id,
      previousState: before,
      nextState: after,
    }),
  ]);
  forgetReviewLink(before.slug);
  return dto(ctx, after);
}

/** Deletes the link and its click rows; its URL (and printed QR codes) answer 404 from then on. */
export async function deleteReviewLink(ctx: ServiceContext, id: string) {
  const before = await findRow(ctx, id);
  await commit(ctx, [
    ctx.db
      .delete(reviewLinkClicks)
      .where(and(eq(reviewLinkClicks.tenantId, ctx.tenantId), eq(reviewLinkClicks.reviewLinkId, id))),
    ctx.db.delete(reviewLinks).where(inTenant(ctx, id)),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "review_link.deleted",
      resourceType: "review_link",
      resourceId: id,
      previousState: before,
    }),
  ]);
  forgetReviewLink(before.slug);
}

/** Opens of the link by source (link, qr) and by the site they were sent to. */
export async function reviewLinkStats(ctx: ServiceContext, id: string, range: { from?: string; to?: string }) {
  await findRow(ctx, id);
  const rows = await ctx.db
    .select({ source: reviewLinkClicks.source, site: reviewLinkClicks.site, n: sql<number>`count(*)` })
    .from(reviewLinkClicks)
    .where(
      and(
        eq(reviewLinkClicks.tenantId, ctx.tenantId),
        eq(reviewLinkClicks.reviewLinkId, id),
        range.from ? gte(reviewLinkClicks.clickedAt, new Date(range.from).toISOString()) : undefined,
        range.to ? lt(reviewLinkClicks.clickedAt, new Date(range.to).toISOString()) : undefined,
      ),
    )
    .groupBy(reviewLinkClicks.source, reviewLinkClicks.site);
  const bySource: Record<string, number> = { link: 0, qr: 0 };
  const bySite: Record<string, number> = {};
  for (const r of rows) {
    bySource[r.source] = (bySource[r.source] ?? 0) + r.n;
    bySite[r.site] = (bySite[r.site] ?? 0) + r.n;
  }
  return {
    reviewLinkId: id,
    total: rows.reduce((n, r) => n + r.n, 0),
    unit: "visit" as const,
    visitWindowMinutes: CLICK_WINDOW_MS / 60_000,
    bySource,
    bySite,
  };
}
