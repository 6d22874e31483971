import { and, asc, eq, gte, inArray, lte, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/client";
import { analyticsFunnelDaily as f, analyticsResponseDaily as r, analyticsReviewDaily as v, tenants } from "../../db/schema";
import { allShards, controlDb, shardDb } from "../../db/shards";
import type { Env } from "../../env";
import { findScopedTenant } from "../tenants/service";
import { ownedByScope } from "../tenants/scope";
import type { AgencyScope } from "../tenants/scope";
import { averageOf, rate, sumOf } from "./aggregates";
import type { AgencyFiguresDto } from "./schemas";
import { resolveRange } from "./service";

const empty = () => ({ reviews: 0, rated: 0, ratingSum: 0, negative: 0, requested: 0, sent: 0, delivered: 0, clicked: 0, converted: 0, arrived: 0, responded: 0 });
type Sums = ReturnType<typeof empty>;

const figures = (s: Sums): AgencyFiguresDto => ({
  reviews: { count: s.reviews, averageRating: averageOf(s.ratingSum, s.rated), negative: s.negative },
  funnel: { requested: s.requested, sent: s.sent, delivered: s.delivered, clicked: s.clicked, converted: s.converted, conversionRate: rate(s.converted, s.sent) },
  responses: { reviews: s.arrived, responded: s.responded, responseRate: rate(s.responded, s.arrived) },
});

/**
 * GET /agency/analytics: the rollups of every tenant the caller's agencies own (or the one owned
 * tenant asked for; another agency's tenant is 404), per tenant and in total. Rollups live on the
 * tenants' shards: every shard is read in parallel (each shard's `tenants` mirror scopes the owned
 * tenants there) and the sums merged; names come from the control plane (docs/scaling.md).
 */
export async function agencyAnalytics(env: Env, scope: AgencyScope, q: { dateFrom?: string; dateTo?: string; tenantId?: string }) {
  const range = resolveRange(q);
  const control = controlDb(env);
  const shards = q.tenantId ? [shardDb(env, (await findScopedTenant(control, scope, q.tenantId)).shard)] : allShards(env).map((s) => s.db);
  const byTenant = new Map<string, Sums>();
  for (const rows of await Promise.all(shards.map((db) => shardRollups(db, scope, q.tenantId, range)))) {
    for (const { tenantId, ...x } of rows) {
      const sums = byTenant.get(tenantId) ?? empty();
      for (const k of Object.keys(x) as (keyof Sums)[]) sums[k] += x[k] ?? 0;
      byTenant.set(tenantId, sums);
    }
  }
  const ids = [...byTenant.keys()];
  const names = ids.length ? await control.select({ id: tenants.id, name: tenants.name, slug: tenants.slug }).from(tenants).where(inArray(tenants.id, ids)).orderBy(asc(tenants.name)) : [];
  const total = empty();
  for (const s of byTenant.values()) for (const k of Object.keys(total) as (keyof Sums)[]) total[k] += s[k];
  return {
    range,
    totals: figures(total),
    tenants: names.map((t) => ({ tenant: t, ...figures(byTenant.get(t.id)!) })),
  };
}

/** One shard's rollup sums per owned tenant (three grouped reads in one batch). */
async function shardRollups(db: Db, scope: AgencyScope, tenantId: string | undefined, range: { dateFrom: string; dateTo: string }) {
  const owned = (col: SQLiteColumn) => (tenantId ? eq(col, tenantId) : ownedByScope(db, col, scope));
  const inRange = (t: { day: SQLiteColumn }) => and(gte(t.day, range.dateFrom), lte(t.day, range.dateTo));
  const [reviewRows, funnelRows, responseRows] = await db.batch([
    db
      .select({ tenantId: v.tenantId, reviews: sumOf(v.reviews), rated: sumOf(v.rated), ratingSum: sql<number>`total(${v.ratingSum})`.mapWith(Number), negative: sumOf(v.negative) })
      .from(v)
      .where(and(owned(v.tenantId), inRange(v)))
      .groupBy(v.tenantId),
    db
      .select({ tenantId: f.tenantId, requested: sumOf(f.requested), sent: sumOf(f.sent), delivered: sumOf(f.delivered), clicked: sumOf(f.clicked), converted: sumOf(f.converted) })
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
