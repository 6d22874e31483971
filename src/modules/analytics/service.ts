import { and, asc, count, eq, type SQL, sql } from "drizzle-orm";
import {
  brands,
  campaigns,
  analyticsFunnelDaily as f,
  locations,
  analyticsResponseDaily as r,
  analyticsReviewDaily as v,
} from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { type ValidationIssue, validationError } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import {
  funnelBy,
  funnelCounts,
  mergeSorted,
  openDueByLocation,
  orNull,
  responseMinutesByLocation,
  responseStats,
  responseSums,
  reviewStats,
  reviewSums,
  rollupWhere,
  sumOpen,
} from "./aggregates";
import { addDaysTo, dayOf } from "./dates";
import { recomputeFunnel, recomputeResponses, recomputeReviews } from "./rollups";
import type { AnalyticsFilter, FunnelFilter, Interval, ReviewAnalyticsFilter } from "./schemas";

/** The default range: the 30 days ending today (UTC). */
export function resolveRange(q: { dateFrom?: string; dateTo?: string }, now = new Date()) {
  const to = q.dateTo ?? (q.dateFrom && q.dateFrom > dayOf(now) ? q.dateFrom : dayOf(now));
  const from = q.dateFrom ?? addDaysTo(to, -29);
  return { dateFrom: from, dateTo: to };
}

/** A filter naming another tenant's location, brand or campaign is a 400, like a body reference. */
async function assertRefs(ctx: ServiceContext, q: { locationId?: string; brandId?: string; campaignId?: string }) {
  const none = sql`0`;
  const [loc, brand, campaign] = await ctx.db.batch([
    ctx.db
      .select({ n: count() })
      .from(locations)
      .where(q.locationId ? and(eq(locations.id, q.locationId), eq(locations.tenantId, ctx.tenantId)) : none),
    ctx.db
      .select({ n: count() })
      .from(brands)
      .where(q.brandId ? and(eq(brands.id, q.brandId), eq(brands.tenantId, ctx.tenantId)) : none),
    ctx.db
      .select({ n: count() })
      .from(campaigns)
      .where(q.campaignId ? and(eq(campaigns.id, q.campaignId), eq(campaigns.tenantId, ctx.tenantId)) : none),
  ]);
  const issues: ValidationIssue[] = [];
  if (q.locationId && !loc[0]?.n) issues.push({ path: "locationId", message: "Unknown location" });
  if (q.brandId && !brand[0]?.n) issues.push({ path: "brandId", message: "Unknown brand" });
  if (q.campaignId && !campaign[0]?.n) issues.push({ path: "campaignId", message: "Unknown campaign" });
  if (issues.length) throw validationError(issues);
}

async function scopeOf(ctx: ServiceContext, q: AnalyticsFilter & { campaignId?: string }) {
  await assertRefs(ctx, q);
  const range = resolveRange(q);
  const o = {
    tenantId: ctx.tenantId,
    from: range.dateFrom,
    to: range.dateTo,
    locationId: q.locationId,
    brandId: q.brandId,
  };
  return { range, where: (t: Parameters<typeof rollupWhere>[1]) => rollupWhere(ctx.db, t, o) };
}

// ---- funnel

export async function funnelAnalytics(ctx: ServiceContext, q: FunnelFilter) {
  const { range, where } = await scopeOf(ctx, q);
  const w = and(
    where(f),
    q.campaignId ? eq(f.campaignId, q.campaignId) : undefined,
    q.channel ? eq(f.channel, q.channel) : undefined,
  );
  const [totals, byChannel, byTemplate, byCampaign, byVariant] = await ctx.db.batch([
    funnelBy(ctx.db, w),
    funnelBy(ctx.db, w, ["channel"]),
    funnelBy(ctx.db, w, ["templateId"]),
    funnelBy(ctx.db, w, ["campaignId"]),
    funnelBy(ctx.db, and(w, sql`${f.variantId} <> ''`), ["campaignId", "variantId"]),
  ]);
  return {
    range,
    totals: funnelCounts(totals[0]!),
    byChannel: byChannel.map((x) => ({ channel: x.channel, ...funnelCounts(x) })),
    byTemplate: byTemplate.map((x) => ({ templateId: orNull(x.templateId), ...funnelCounts(x) })),
    byCampaign: byCampaign.map((x) => ({ campaignId: orNull(x.campaignId), ...funnelCounts(x) })),
    byVariant: byVariant.map((x) => ({ campaignId: orNull(x.campaignId), variantId: x.variantId, ...funnelCounts(x) })),
  };
}

// ---- reviews

const PERIOD: Record<Interval, SQL<string>> = {
  day: sql<string>`${v.day}`,
  week: sql<string>`date(${v.day}, 'weekday 0', '-6 days')`,
  month: sql<string>`substr(${v.day}, 1, 7)`,
};

export async function reviewAnalytics(ctx: ServiceContext, q: ReviewAnalyticsFilter) {
  const { range, where } = await scopeOf(ctx, q);
  const w = and(where(v), q.siteType ? eq(v.siteType, q.siteType) : undefined);
  const period = PERIOD[q.interval].as("period");
  const [totals, series, byLocation, bySite] = await ctx.db.batch([
    ctx.db.select(reviewSums).from(v).where(w),
    ctx.db
      .select({ period, ...reviewSums })
      .from(v)
      .where(w)
      .groupBy(sql`period`)
      .orderBy(sql`period`),
    ctx.db
      .select({ locationId: v.locationId, ...reviewSums })
      .from(v)
      .where(w)
      .groupBy(v.locationId)
      .orderBy(asc(v.locationId)),
    ctx.db
      .select({ siteType: v.siteType, ...reviewSums })
      .from(v)
      .where(w)
      .groupBy(v.siteType)
      .orderBy(asc(v.siteType)),
  ]);
  return {
    range,
    interval: q.interval,
    totals: reviewStats(totals[0]!),
    series: series.map((x) => ({ period: x.period, ...reviewStats(x) })),
    byLocation: byLocation.map((x) => ({ locationId: x.locationId, ...reviewStats(x) })),
    bySite: bySite.map((x) => ({ siteType: x.siteType, ...reviewStats(x) })),
  };
}

// ---- responses

export async function responseAnalytics(ctx: ServiceContext, q: AnalyticsFilter, now = new Date()) {
  const { range, where } = await scopeOf(ctx, q);
  const w = where(r);
  const [totals, byLocation] = await ctx.db.batch([
    ctx.db.select(responseSums).from(r).where(w),
    ctx.db
      .select({ locationId: r.locationId, ...responseSums })
      .from(r)
      .where(w)
      .groupBy(r.locationId)
      .orderBy(asc(r.locationId)),
  ]);
  const minutes = await responseMinutesByLocation(ctx.db, w);
  const open = await openDueByLocation(ctx.db, w, nowIso(now));
  const none = { missed: 0, pending: 0 };
  return {
    range,
    totals: responseStats(totals[0]!, mergeSorted(minutes.values()), sumOpen(open.values())),
    byLocation: byLocation.map((x) => ({
      locationId: x.locationId,
      ...responseStats(x, minutes.get(x.locationId) ?? [], open.get(x.locationId) ?? none),
    })),
  };
}

// ---- overview

export async function overview(ctx: ServiceContext, q: AnalyticsFilter) {
  const { range, where } = await scopeOf(ctx, q);
  const [reviewsRow, funnelRow] = await ctx.db.batch([
    ctx.db.select(reviewSums).from(v).where(where(v)),
    funnelBy(ctx.db, where(f)),
  ]);
  const responses = await responseAnalytics(ctx, { ...q, ...range, locationId: q.locationId, brandId: q.brandId });
  return {
    range,
    reviews: reviewStats(reviewsRow[0]!),
    funnel: funnelCounts(funnelRow[0]!),
    responses: responses.totals,
  };
}

// ---- rebuild

/** Recomputes every rollup of the tenant over the days from source rows (backfill, repairs). Audited. */
export async function rebuildAnalytics(ctx: ServiceContext, input: { dateFrom: string; dateTo: string }) {
  const scope = { tenantId: ctx.tenantId, from: input.dateFrom, to: input.dateTo };
  await recomputeFunnel(ctx.db, scope);
  await recomputeReviews(ctx.db, scope);
  await recomputeResponses(ctx.db, scope);
  const o = { tenantId: ctx.tenantId, from: input.dateFrom, to: input.dateTo };
  const [fr, vr, rr] = await ctx.db.batch([
    ctx.db
      .select({ n: count() })
      .from(f)
      .where(rollupWhere(ctx.db, f, o)),
    ctx.db
      .select({ n: count() })
      .from(v)
      .where(rollupWhere(ctx.db, v, o)),
    ctx.db
      .select({ n: count() })
      .from(r)
      .where(rollupWhere(ctx.db, r, o)),
  ]);
  const result = {
    range: { dateFrom: input.dateFrom, dateTo: input.dateTo },
    funnelRows: fr[0]?.n ?? 0,
    reviewRows: vr[0]?.n ?? 0,
    responseRows: rr[0]?.n ?? 0,
    rebuiltAt: nowIso(),
  };
  await commit(ctx, [
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "analytics.rebuilt",
      resourceType: "analytics",
      resourceId: ctx.tenantId,
      nextState: result,
    }),
  ]);
  return result;
}
