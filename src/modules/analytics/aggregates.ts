import { and, asc, eq, gte, inArray, lte, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/client";
import {
  analyticsFunnelDaily as f,
  locations,
  analyticsResponseDaily as r,
  analyticsReviewDaily as v,
} from "../../db/schema";
import { groupMap } from "../../lib/collections";
import type { FunnelCounts, ResponseStats, ReviewStats } from "./schemas";

/** Integer sum of a rollup column (0 over no rows). */
export const sumOf = (col: SQLiteColumn | SQL) => sql<number>`cast(total(${col}) as integer)`.mapWith(Number);

export const rate = (n: number, d: number) => (d > 0 ? Math.round((n / d) * 10_000) / 10_000 : null);

/** Rows of a rollup table in a tenant's day range, optionally one location or one brand's locations. */
export function rollupWhere(
  db: Db,
  t: { tenantId: SQLiteColumn; day: SQLiteColumn; locationId: SQLiteColumn },
  o: { tenantId: string; from: string; to: string; locationId?: string; brandId?: string },
): SQL {
  return and(
    eq(t.tenantId, o.tenantId),
    gte(t.day, o.from),
    lte(t.day, o.to),
    o.locationId ? eq(t.locationId, o.locationId) : undefined,
    o.brandId
      ? inArray(
          t.locationId,
          db
            .select({ id: locations.id })
            .from(locations)
            .where(and(eq(locations.tenantId, o.tenantId), eq(locations.brandId, o.brandId))),
        )
      : undefined,
  )!;
}

// ---- funnel

export const funnelSums = {
  requested: sumOf(f.requested),
  sent: sumOf(f.sent),
  delivered: sumOf(f.delivered),
  clicked: sumOf(f.clicked),
  converted: sumOf(f.converted),
  blocked: sumOf(f.blocked),
  blockedByCap: sumOf(f.blockedByCap),
  failed: sumOf(f.failed),
};
type FunnelSums = { [K in keyof typeof funnelSums]: number };

export const funnelCounts = (s: FunnelSums): FunnelCounts => ({
  requested: s.requested,
  sent: s.sent,
  delivered: s.delivered,
  clicked: s.clicked,
  converted: s.converted,
  blocked: s.blocked,
  blockedByCap: s.blockedByCap,
  failed: s.failed,
  deliveryRate: rate(s.delivered, s.sent),
  clickRate: rate(s.clicked, s.sent),
  conversionRate: rate(s.converted, s.sent),
});

/** The funnel rollup's key columns a funnel can be broken down by. */
const FUNNEL_KEYS = { channel: f.channel, templateId: f.templateId, campaignId: f.campaignId, variantId: f.variantId };

/**
 * The review-request funnel summed from its daily rollup over `where`: one row per value of the `by`
 * columns, in their order (no `by`: one row of totals). Every funnel (GET /v1/analytics/funnel, the
 * overview, campaign.metrics) reads it this way (test/node/one-definition.test.ts); map rows with funnelCounts.
 */
export function funnelBy<K extends keyof typeof FUNNEL_KEYS>(db: Db, where: SQL | undefined, by: readonly K[] = []) {
  const keys = Object.fromEntries(by.map((k) => [k, FUNNEL_KEYS[k]])) as Pick<typeof FUNNEL_KEYS, K>;
  const columns = by.map((k) => FUNNEL_KEYS[k]);
  return db
    .select({ ...keys, ...funnelSums })
    .from(f)
    .where(where)
    .groupBy(...columns)
    .orderBy(...columns.map((c) => asc(c)));
}

/** '' is the rollups' "none" in key columns. */
export const orNull = (s: string) => (s === "" ? null : s);

// ---- reviews

export const reviewSums = {
  count: sumOf(v.reviews),
  rated: sumOf(v.rated),
  ratingSum: sql<number>`total(${v.ratingSum})`.mapWith(Number),
  r1: sumOf(v.rating1),
  r2: sumOf(v.rating2),
  r3: sumOf(v.rating3),
  r4: sumOf(v.rating4),
  r5: sumOf(v.rating5),
  positive: sumOf(v.positive),
  neutral: sumOf(v.neutral),
  negative: sumOf(v.negative),
};
type ReviewSums = { [K in keyof typeof reviewSums]: number };

export const averageOf = (sum: number, n: number) => (n > 0 ? Math.round((sum / n) * 100) / 100 : null);

export const reviewStats = (s: ReviewSums): ReviewStats => ({
  count: s.count,
  averageRating: averageOf(s.ratingSum, s.rated),
  distribution: { "1": s.r1, "2": s.r2, "3": s.r3, "4": s.r4, "5": s.r5 },
  sentiment: { positive: s.positive, neutral: s.neutral, negative: s.negative },
});

// ---- responses

export const responseSums = {
  reviews: sumOf(r.reviews),
  responded: sumOf(r.responded),
  slaCovered: sumOf(r.slaCovered),
  slaMet: sumOf(r.slaMet),
  slaMissed: sumOf(r.slaMissed),
};
type ResponseSums = { [K in keyof typeof responseSums]: number };

export const median = (sorted: number[]) => {
  if (!sorted.length) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** First-response minutes per location, each list sorted (json_each over the rows' arrays). */
export async function responseMinutesByLocation(db: Db, where: SQL): Promise<Map<string, number[]>> {
  const rows = await db.all<{ locationId: string; v: number }>(
    sql`select ${r.locationId} as locationId, j.value as v from ${r}, json_each(${r.responseMinutes}) j where ${where} order by j.value`,
  );
  return groupMap(
    rows,
    (row) => row.locationId,
    (row) => Number(row.v),
  );
}

/** Open SLA due times per location, split at `now` into missed (past due) and pending. */
export async function openDueByLocation(
  db: Db,
  where: SQL,
  now: string,
): Promise<Map<string, { missed: number; pending: number }>> {
  const rows = await db.all<{ locationId: string; missed: number; pending: number }>(
    sql`select ${r.locationId} as locationId, cast(total(j.value < ${now}) as integer) as missed, cast(total(j.value >= ${now}) as integer) as pending
        from ${r}, json_each(${r.slaOpenDue}) j where ${where} group by ${r.locationId}`,
  );
  return new Map(rows.map((x) => [x.locationId, { missed: Number(x.missed), pending: Number(x.pending) }]));
}

export function responseStats(
  s: ResponseSums,
  minutes: number[],
  open: { missed: number; pending: number },
): ResponseStats {
  const missed = s.slaMissed + open.missed;
  return {
    reviews: s.reviews,
    responded: s.responded,
    responseRate: rate(s.responded, s.reviews),
    medianFirstResponseMinutes: median(minutes),
    sla: {
      covered: s.slaCovered,
      met: s.slaMet,
      missed,
      pending: open.pending,
      complianceRate: rate(s.slaMet, s.slaMet + missed),
    },
  };
}

/** Merges per-location figures (already sorted lists) into one. */
export const mergeSorted = (lists: Iterable<number[]>) => [...lists].flat().sort((a, b) => a - b);
export const sumOpen = (xs: Iterable<{ missed: number; pending: number }>) =>
  [...xs].reduce((a, x) => ({ missed: a.missed + x.missed, pending: a.pending + x.pending }), {
    missed: 0,
    pending: 0,
  });
