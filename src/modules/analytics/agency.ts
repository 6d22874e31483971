import { and, asc, gte, lte, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { ofTarget, type ShardTarget } from "../../db/cross-shard";
import {
  analyticsFunnelDaily as f,
  analyticsResponseDaily as r,
  tenants,
  analyticsReviewDaily as v,
} from "../../db/schema";
import { controlDb } from "../../db/shards";
import type { Env } from "../../env";
import { inJson } from "../../lib/sql";
import { agencyShards } from "../agency/service";
import type { AgencyScope } from "../tenants/scope";
import { averageOf, rate, sumOf } from "./aggregates";
import type { AgencyFiguresDto } from "./schemas";
import { resolveRange } from "./service";

const empty = () => ({
  reviews: 0,
  rated: 0,
  ratingSum: 0,
  negative: 0,
  requested: 0,
  sent: 0,
  delivered: 0,
  clicked: 0,
  converted: 0,
  arrived: 0,
  responded: 0,
});
type Sums = ReturnType<typeof empty>;

const figures = (s: Sums): AgencyFiguresDto => ({
  reviews: { count: s.reviews, averageRating: averageOf(s.ratingSum, s.rated), negative: s.negative },
  funnel: {
    requested: s.requested,
    sent: s.sent,
    delivered: s.delivered,
    clicked: s.clicked,
    converted: s.converted,
    conversionRate: rate(s.converted, s.sent),
  },
  responses: { reviews: s.arrived, responded: s.responded, responseRate: rate(s.responded, s.arrived) },
});

/**
 * GET /agency/analytics: the rollups of every tenant the caller's agencies own (or the one owned
 * tenant asked for; another agency's tenant is 404), per tenant and in total. Rollups live on the
 * tenants' shards: the shards holding owned tenants (from the directory, `agencyShards`) are read in
 * parallel and the sums merged; names come from the control plane (docs/scaling.md).
 */
export async function agencyAnalytics(
  env: Env,
  scope: AgencyScope,
  q: { dateFrom?: string; dateTo?: string; tenantId?: string },
) {
  const range = resolveRange(q);
  const control = controlDb(env);
  const byTenant = new Map<string, Sums>();
  for (const rows of await Promise.all(
    (await agencyShards(env, scope, q.tenantId)).map((t) => shardRollups(t, range)),
  )) {
    for (const { tenantId, ...x } of rows) {
      const sums = byTenant.get(tenantId) ?? empty();
      for (const k of Object.keys(x) as (keyof Sums)[]) sums[k] += x[k] ?? 0;
      byTenant.set(tenantId, sums);
    }
  }
  const ids = [...byTenant.keys()];
  // one bound parameter however many tenants (D1 binds at most 100)
  const names = ids.length
    ? await control
        .select({ id: tenants.id, name: tenants.name, slug: tenants.slug })
        .from(tenants)
        .where(inJson(tenants.id, ids))
        .orderBy(asc(tenants.name))
    : [];
  const total = empty();
  for (const s of byTenant.values()) for (const k of Object.keys(total) as (keyof Sums)[]) total[k] += s[k];
  return {
    range,
    totals: figures(total),
    tenants: names.map((t) => ({ tenant: t, ...figures(byTenant.get(t.id)!) })),
  };
}

/** One shard's rollup sums per owned tenant (three grouped reads in one batch). */
async function shardRollups(target: ShardTarget, range: { dateFrom: string; dateTo: string }) {
  const db = target.db;
  const owned = (col: SQLiteColumn) => ofTarget(col, target);
  const inRange = (t: { day: SQLiteColumn }) => and(gte(t.day, range.dateFrom), lte(t.day, range.dateTo));
  const [reviewRows, funnelRows, responseRows] = await db.batch([
    db
      .select({
        tenantId: v.tenantId,
        reviews: sumOf(v.reviews),
        rated: sumOf(v.rated),
        ratingSum: sql<number>`total(${v.ratingSum})`.mapWith(Number),
        negative: sumOf(v.negative),
      })
      .from(v)
      .where(and(owned(v.tenantId), inRange(v)))
      .groupBy(v.tenantId),
    db
      .select({
        tenantId: f.tenantId,
        requested: sumOf(f.requested),
        sent: sumOf(f.sent),
        delivered: sumOf(f.delivered),
        clicked: sumOf(f.clicked),
        converted: sumOf(f.converted),
      })
      .from(f)
      .where(and(owned(f.tenantId), inRange(f)))
      .groupBy(f.tenantId),
    db
      .select({ tenantId: r.tenantId, arrived: sumOf(r.reviews), responded: sumOf(r.responded) })
      .from(r)
      .where(and(owned(r.tenantId), inRange(r)))
      .groupBy(r.tenantId),
  ]);
  return [...reviewRows, ...funnelRows, ...responseRows] as ({ tenantId: string } & Partial<Sums>)[];
}
