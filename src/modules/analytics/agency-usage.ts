import { and, count, eq, gte, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { ShardDb } from "../../db/client";
import { groupByShard } from "../../db/cross-shard";
import {
  contactCounts,
  analyticsFunnelDaily as f,
  locations,
  analyticsResponseDaily as r,
  tenants,
  analyticsReviewDaily as v,
} from "../../db/schema";
import { controlDb } from "../../db/shards";
import type { Env } from "../../env";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { inJson } from "../../lib/sql";
import { type AgencyScope, tenantsInScope } from "../tenants/scope";
import { findScopedTenant } from "../tenants/service";
import { averageOf, rate, sumOf } from "./aggregates";
import { addDaysTo, dayOf } from "./dates";

/*
 * GET /agency/usage: per tenant of the caller's agencies, what it uses and how it is doing, for the
 * console's agency page (issue #46). One page of tenants from the directory (control database), then ONE
 * D1 batch per shard holding any of them, the shards in parallel (docs/scaling.md): grouped counts of
 * active locations, the contact counter, and the daily rollups (docs/analytics.md) for messages sent,
 * reviews, rating, response rate and the SLA due times still open. A page is a round trip to the control
 * database plus one per shard touched, whatever the number of tenants.
 */

type TenantRow = typeof tenants.$inferSelect;

interface Usage {
  locations: number;
  contacts: number;
  messagesSentThisMonth: number;
  reviews: number;
  reviewsThisMonth: number;
  rated: number;
  ratingSum: number;
  arrived: number;
  responded: number;
  overdueInboxItems: number;
}

const none = (): Usage => ({
  locations: 0,
  contacts: 0,
  messagesSentThisMonth: 0,
  reviews: 0,
  reviewsThisMonth: 0,
  rated: 0,
  ratingSum: 0,
  arrived: 0,
  responded: 0,
  overdueInboxItems: 0,
});

type Rows = BatchItem<"sqlite"> & PromiseLike<({ tenantId: string } & Partial<Usage>)[]>;

/** The figures of `ids` (all on this shard), one grouped read each, in one batch. */
function shardQueries(db: ShardDb, ids: string[], o: { month: string; from: string; to: string; now: string }): Rows[] {
  const ofTenants = (col: SQLiteColumn) => inJson(col, ids);
  const since = (day: SQLiteColumn, first: string) => sql`${day} >= ${first}`;
  return [
    db
      .select({ tenantId: locations.tenantId, locations: count() })
      .from(locations)
      .where(and(ofTenants(locations.tenantId), eq(locations.isActive, true)))
      .groupBy(locations.tenantId),
    // the counter the contacts triggers keep exact (tenants/counts.ts reads it for _count too)
    db
      .select({ tenantId: contactCounts.tenantId, contacts: contactCounts.total })
      .from(contactCounts)
      .where(ofTenants(contactCounts.tenantId)),
    db
      .select({ tenantId: f.tenantId, messagesSentThisMonth: sumOf(f.sent) })
      .from(f)
      .where(and(ofTenants(f.tenantId), gte(f.day, o.month)))
      .groupBy(f.tenantId),
    db
      .select({
        tenantId: v.tenantId,
        reviews: sumOf(v.reviews),
        reviewsThisMonth: sumOf(sql`${v.reviews} * (${since(v.day, o.month)})`),
        rated: sumOf(v.rated),
        ratingSum: sql<number>`total(${v.ratingSum})`.mapWith(Number),
      })
      .from(v)
      .where(ofTenants(v.tenantId))
      .groupBy(v.tenantId),
    db
      .select({
        tenantId: r.tenantId,
        arrived: sumOf(sql`${r.reviews} * (${r.day} between ${o.from} and ${o.to})`),
        responded: sumOf(sql`${r.responded} * (${r.day} between ${o.from} and ${o.to})`),
        // the open SLA due times already past: reviews still unanswered after their window
        overdueInboxItems: sumOf(sql`(select count(*) from json_each(${r.slaOpenDue}) where value < ${o.now})`),
      })
      .from(r)
      .where(ofTenants(r.tenantId))
      .groupBy(r.tenantId),
  ];
}

async function usageOf(env: Env, refs: TenantRow[], now: Date) {
  const today = dayOf(now);
  const o = { month: `${today.slice(0, 7)}-01`, from: addDaysTo(today, -29), to: today, now: now.toISOString() };
  const out = new Map(refs.map((t) => [t.id, none()]));
  await Promise.all(
    groupByShard(env, refs).map(async (target) => {
      const ids = target.tenantIds ?? [];
      if (!ids.length) return;
      const [first, ...rest] = shardQueries(target.db, ids, o);
      const answers = (await target.db.batch([first!, ...rest])) as ({ tenantId: string } & Partial<Usage>)[][];
      for (const rows of answers)
        for (const { tenantId, ...x } of rows) {
          const u = out.get(tenantId);
          if (!u) continue;
          for (const [k, n] of Object.entries(x)) u[k as keyof Usage] += Number(n ?? 0);
        }
    }),
  );
  return { out, o };
}

const asDto = (t: TenantRow, u: Usage) => ({
  tenant: { id: t.id, name: t.name, slug: t.slug, plan: t.plan, isActive: t.isActive },
  locations: u.locations,
  contacts: u.contacts,
  messagesSentThisMonth: u.messagesSentThisMonth,
  reviews: u.reviews,
  reviewsThisMonth: u.reviewsThisMonth,
  averageRating: averageOf(u.ratingSum, u.rated),
  responseRate: rate(u.responded, u.arrived),
  overdueInboxItems: u.overdueInboxItems,
});

/** One page of the scope's tenants (newest first, like GET /agency/tenants) with their usage; tenantId: that one (404 when not owned). */
export async function agencyUsage(
  env: Env,
  scope: AgencyScope,
  q: PageQuery & { tenantId?: string; isActive?: boolean },
  now = new Date(),
) {
  const control = controlDb(env);
  const where: SQL | undefined = and(
    tenantsInScope(scope),
    q.tenantId ? eq(tenants.id, (await findScopedTenant(control, scope, q.tenantId)).id) : undefined,
    q.isActive === undefined ? undefined : eq(tenants.isActive, q.isActive),
  );
  const page = await keysetPage(control, {
    query: q,
    sort: [tenants.createdAt, tenants.id],
    rows: (cursor, order, limit) =>
      control
        .select()
        .from(tenants)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: control.select({ n: count() }).from(tenants).where(where),
    key: (t) => [t.createdAt, t.id],
    map: (t) => t,
  });
  const { out, o } = await usageOf(env, page.data, now);
  return {
    ...page,
    data: page.data.map((t) => asDto(t, out.get(t.id)!)),
    month: o.month.slice(0, 7),
    responseRange: { dateFrom: o.from, dateTo: o.to },
    asOf: o.now,
  };
}
