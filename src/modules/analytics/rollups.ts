import { and, asc, eq, gte, lte, sql, type SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/client";
import { analyticsFunnelDaily, analyticsResponseDaily, analyticsReviewDaily, reviews, slaRules } from "../../db/schema";
import { ruleFilter } from "../reviews/sla.service";
import { nextDay } from "./dates";

/** What one recompute covers: a tenant, an inclusive range of UTC days, optionally one location. */
export interface RollupScope {
  tenantId: string;
  from: string;
  to: string;
  locationId?: string;
}

type RollupTable = typeof analyticsFunnelDaily | typeof analyticsReviewDaily | typeof analyticsResponseDaily;

const deleteRows = (db: Db, t: RollupTable, s: RollupScope) =>
  db.delete(t).where(and(eq(t.tenantId, s.tenantId), gte(t.day, s.from), lte(t.day, s.to), s.locationId ? eq(t.locationId, s.locationId) : undefined)).getSQL();

const dialect = new SQLiteAsyncDialect();

/**
 * Runs the statements as one atomic D1 batch. Raw on D1 directly: drizzle's batch cannot bind the
 * parameters of a raw INSERT ... SELECT.
 */
async function atomically(db: Db, statements: SQL[]) {
  await db.$client.batch(
    statements.map((s) => {
      const q = dialect.sqlToQuery(s);
      return db.$client.prepare(q.sql).bind(...q.params);
    }),
  );
}

/** Source rows of the scope: `col` (an ISO timestamp) within the days, of the tenant (and location). */
const sourceRange = (tenantCol: SQL, col: SQL, locationCol: SQL, s: RollupScope) =>
  sql`${tenantCol} = ${s.tenantId} and ${col} >= ${s.from} and ${col} < ${nextDay(s.to)}${s.locationId ? sql` and ${locationCol} = ${s.locationId}` : sql``}`;

/**
 * The funnel rows of the scope, recomputed from solicitations in one atomic batch (delete, then
 * INSERT ... SELECT). Running it again gives the same rows, so event redelivery is harmless.
 */
export async function recomputeFunnel(db: Db, s: RollupScope) {
  await atomically(db, [
    deleteRows(db, analyticsFunnelDaily, s),
    sql`
      insert into analytics_funnel_daily (tenant_id, day, location_id, channel, campaign_id, template_id, variant_id,
        requested, sent, delivered, clicked, converted, blocked, blocked_by_cap, failed)
      select tenant_id, substr(created_at, 1, 10), location_id, channel, coalesce(campaign_id, ''), coalesce(template_id, ''), coalesce(variant_id, ''),
        count(*),
        total(sent_at is not null or status in ('SENT', 'DELIVERED', 'BOUNCED')),
        total(delivered_at is not null or status = 'DELIVERED'),
        total(clicked_at is not null),
        total(converted_at is not null),
        total(status = 'BLOCKED'),
        total(status = 'BLOCKED' and blocked_reason in ('FREQUENCY_CAP_DAILY', 'FREQUENCY_CAP_WEEKLY')),
        total(status in ('FAILED', 'BOUNCED'))
      from solicitations
      where ${sourceRange(sql`tenant_id`, sql`created_at`, sql`location_id`, s)}
      group by 2, 3, 4, 5, 6, 7`,
  ]);
}

/** The review rows of the scope (by occurredAt), recomputed like the funnel. */
export async function recomputeReviews(db: Db, s: RollupScope) {
  await atomically(db, [
    deleteRows(db, analyticsReviewDaily, s),
    sql`
      insert into analytics_review_daily (tenant_id, day, location_id, site_type, reviews, rated, rating_sum,
        rating_1, rating_2, rating_3, rating_4, rating_5, positive, neutral, negative)
      select tenant_id, substr(occurred_at, 1, 10), location_id, site_type, count(*), count(rating), total(rating),
        total(round(rating) = 1), total(round(rating) = 2), total(round(rating) = 3), total(round(rating) = 4), total(round(rating) = 5),
        total(sentiment = 'positive'), total(sentiment = 'neutral'), total(sentiment = 'negative')
      from reviews
      where ${sourceRange(sql`tenant_id`, sql`occurred_at`, sql`location_id`, s)}
      group by 2, 3, 4`,
  ]);
}

/** A SQL literal for a value from a validated rule (numbers, enum strings, ids): keeps the statement under D1's 100 bound parameters. */
const literal = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? String(v) : `'${String(v).replaceAll("'", "''")}'`);

/**
 * When the review is due under the tenant's active SLA rules: the earliest window among the rules
 * whose filter covers it, or null. Rule values are inlined as literals (see `literal`).
 */
async function dueExpression(db: Db, tenantId: string): Promise<SQL> {
  const rules = await db
    .select()
    .from(slaRules)
    .where(and(eq(slaRules.tenantId, tenantId), eq(slaRules.isActive, true)))
    .orderBy(asc(slaRules.createdAt))
    .limit(100);
  if (!rules.length) return sql`null`;
  const inline = (cond: SQL | undefined) => {
    if (!cond) return "1";
    const q = db.select({ one: sql`1` }).from(reviews).where(cond).toSQL();
    // the condition part of "select 1 from reviews where <cond>", parameters inlined
    let i = 0;
    return q.sql.slice(q.sql.indexOf(" where ") + 7).replace(/\?/g, () => literal(q.params[i++]));
  };
  const cases = rules.map(
    (r) =>
      `case when ${inline(ruleFilter(r.filter))} then strftime('%Y-%m-%dT%H:%M:%fZ', "reviews"."created_at", '+${Math.trunc(r.responseWindowHours)} hours') else '9999' end`,
  );
  return sql.raw(`nullif(min('9999', ${cases.join(", ")}), '9999')`);
}

/**
 * The response rows of the scope, by the reviews' arrival day. First response = the earliest response
 * published here; a review answered on the site itself (status responded, nothing published here)
 * counts as responded and, when an SLA covers it, as met, with no response time.
 */
export async function recomputeResponses(db: Db, s: RollupScope) {
  const due = await dueExpression(db, s.tenantId);
  await atomically(db, [
    deleteRows(db, analyticsResponseDaily, s),
    sql`
      insert into analytics_response_daily (tenant_id, day, location_id, reviews, responded, response_minutes,
        sla_covered, sla_met, sla_missed, sla_open_due)
      select tenant_id, day, location_id, count(*), total(status = 'responded'),
        json_group_array(minutes) filter (where minutes is not null),
        total(due is not null),
        total(due is not null and status = 'responded' and (first_pub is null or first_pub <= due)),
        total(due is not null and first_pub is not null and first_pub > due),
        json_group_array(due) filter (where due is not null and status <> 'responded')
      from (
        select tenant_id, substr(created_at, 1, 10) as day, location_id, status, first_pub, due,
          case when first_pub is null then null
               else max(0, cast(round((julianday(first_pub) - julianday(created_at)) * 1440) as integer)) end as minutes
        from (
          select "reviews"."tenant_id", "reviews"."created_at", "reviews"."location_id", "reviews"."status",
            (select min(published_at) from review_responses rr where rr.review_id = "reviews"."id" and rr.status = 'published') as first_pub,
            ${due} as due
          from reviews
          where ${sourceRange(sql`"reviews"."tenant_id"`, sql`"reviews"."created_at"`, sql`"reviews"."location_id"`, s)}
        )
      )
      group by day, location_id`,
  ]);
}

/** Every rollup of the scope. */
export async function recomputeAll(db: Db, s: RollupScope) {
  await recomputeFunnel(db, s);
  await recomputeReviews(db, s);
  await recomputeResponses(db, s);
}
