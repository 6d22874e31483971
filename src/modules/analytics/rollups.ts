import { and, asc, eq, gte, lte, type SQL, sql } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/client";
import { analyticsFunnelDaily, analyticsResponseDaily, analyticsReviewDaily, reviews, slaRules } from "../../db/schema";
import { groupBy } from "../../lib/collections";
import { inJson } from "../../lib/sql";
import { ruleFilter } from "../reviews/sla.service";
import { nextDay } from "./dates";

/** What one recompute covers: a tenant, an inclusive range of UTC days, optionally one location. */
export interface RollupScope {
  tenantId: string;
  from: string;
  to: string;
  locationId?: string;
}

/** One rollup cell: a location of a tenant on one UTC day (what an event touches). */
export interface RollupCell {
  tenantId: string;
  locationId: string;
  day: string;
}

/** A range (backfills, repairs) or any number of cells, of any tenants (an event batch), rebuilt by one statement pair per rollup. */
export type RollupTarget = RollupScope | RollupCell[];

type RollupTable = typeof analyticsFunnelDaily | typeof analyticsReviewDaily | typeof analyticsResponseDaily;

const cellsJson = (cells: RollupCell[]) =>
  JSON.stringify(cells.map((c) => [c.tenantId, c.locationId, c.day, nextDay(c.day)]));

function deleteRows(db: Db, t: RollupTable, target: RollupTarget): SQL {
  if (Array.isArray(target)) {
    // row-value IN over the cells: each probes the (tenant, location, day) index
    return sql`delete from ${t} where (${t.tenantId}, ${t.locationId}, ${t.day}) in
      (select json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') from json_each(${cellsJson(target)}))`;
  }
  const s = target;
  return db
    .delete(t)
    .where(
      and(
        eq(t.tenantId, s.tenantId),
        gte(t.day, s.from),
        lte(t.day, s.to),
        s.locationId ? eq(t.locationId, s.locationId) : undefined,
      ),
    )
    .getSQL();
}

const dialect = new SQLiteAsyncDialect();

/** A raw statement prepared on D1 directly: drizzle's batch cannot bind the parameters of a raw INSERT ... SELECT. */
export function prepareRaw(db: Db, statement: SQL) {
  const q = dialect.sqlToQuery(statement);
  return db.$client.prepare(q.sql).bind(...q.params);
}

/** Runs the statements as one atomic D1 batch. */
export async function atomically(db: Db, statements: SQL[]) {
  if (!statements.length) return;
  await db.$client.batch(statements.map((s) => prepareRaw(db, s)));
}

/**
 * The source rows of the target: FROM and WHERE over `table`, whose timestamp `col` falls in the
 * target's days. For cells, json_each drives the join (CROSS JOIN keeps it the outer loop), so each
 * cell is one range scan of the (tenant, location, timestamp) index.
 */
function source(
  table: "solicitations" | "reviews",
  col: "created_at" | "occurred_at",
  target: RollupTarget,
): { from: SQL; where: SQL } {
  const c = (name: string) => sql.raw(`"${table}"."${name}"`);
  if (Array.isArray(target)) {
    return {
      from: sql`json_each(${cellsJson(target)}) as cell cross join ${sql.raw(`"${table}"`)}`,
      where: sql`${c("tenant_id")} = json_extract(cell.value, '$[0]') and ${c("location_id")} = json_extract(cell.value, '$[1]')
        and ${c(col)} >= json_extract(cell.value, '$[2]') and ${c(col)} < json_extract(cell.value, '$[3]')`,
    };
  }
  const s = target;
  return {
    from: sql.raw(`"${table}"`),
    where: sql`${c("tenant_id")} = ${s.tenantId} and ${c(col)} >= ${s.from} and ${c(col)} < ${nextDay(s.to)}${s.locationId ? sql` and ${c("location_id")} = ${s.locationId}` : sql``}`,
  };
}

const tenantsOf = (target: RollupTarget) =>
  Array.isArray(target) ? [...new Set(target.map((c) => c.tenantId))] : [target.tenantId];

/**
 * The funnel rows of the target, recomputed from solicitations: delete, then INSERT ... SELECT.
 * Running it again gives the same rows, so event redelivery is harmless.
 */
export function funnelStatements(db: Db, target: RollupTarget): SQL[] {
  const src = source("solicitations", "created_at", target);
  return [
    deleteRows(db, analyticsFunnelDaily, target),
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
      from ${src.from}
      where ${src.where}
      group by 1, 2, 3, 4, 5, 6, 7`,
  ];
}

/** The review rows of the target (by occurredAt), recomputed like the funnel. */
export function reviewStatements(db: Db, target: RollupTarget): SQL[] {
  const src = source("reviews", "occurred_at", target);
  return [
    deleteRows(db, analyticsReviewDaily, target),
    sql`
      insert into analytics_review_daily (tenant_id, day, location_id, site_type, reviews, rated, rating_sum,
        rating_1, rating_2, rating_3, rating_4, rating_5, positive, neutral, negative)
      select tenant_id, substr(occurred_at, 1, 10), location_id, site_type, count(*), count(rating), total(rating),
        total(round(rating) = 1), total(round(rating) = 2), total(round(rating) = 3), total(round(rating) = 4), total(round(rating) = 5),
        total(sentiment = 'positive'), total(sentiment = 'neutral'), total(sentiment = 'negative')
      from ${src.from}
      where ${src.where}
      group by 1, 2, 3, 4`,
  ];
}

/** A SQL literal for a value from a validated rule (numbers, enum strings, ids): keeps the statement under D1's 100 bound parameters. */
const literal = (v: unknown) =>
  typeof v === "number" && Number.isFinite(v) ? String(v) : `'${String(v).replaceAll("'", "''")}'`;

/** A tenant's active SLA rules that count, oldest first: the same first 100 the SLA sweep reads. */
const MAX_RULES_PER_TENANT = 100;

/**
 * When a review is due under its tenant's active SLA rules: the earliest window among the rules
 * whose filter covers it, or null. One read for all the tenants; rule values are inlined as
 * literals (see `literal`), per tenant in a CASE on the review's tenant.
 */
export async function dueExpression(db: Db, tenantIds: string[]): Promise<SQL> {
  const rules = await db
    .select()
    .from(slaRules)
    .where(and(inJson(slaRules.tenantId, tenantIds), eq(slaRules.isActive, true)))
    .orderBy(asc(slaRules.createdAt));
  if (!rules.length) return sql`null`;
  const inline = (cond: SQL | undefined) => {
    if (!cond) return "1";
    const q = db.select({ one: sql`1` }).from(reviews).where(cond).toSQL();
    // the condition part of "select 1 from reviews where <cond>", parameters inlined
    let i = 0;
    return q.sql.slice(q.sql.indexOf(" where ") + 7).replace(/\?/g, () => literal(q.params[i++]));
  };
  const branches = [...groupBy(rules, (r) => r.tenantId)].map(([tenantId, all]) => {
    const tenantRules = all.slice(0, MAX_RULES_PER_TENANT);
    const cases = tenantRules.map(
      (r) =>
        `case when ${inline(ruleFilter(r.filter))} then strftime('%Y-%m-%dT%H:%M:%fZ', "reviews"."created_at", '+${Math.trunc(r.responseWindowHours)} hours') else '9999' end`,
    );
    return `when ${literal(tenantId)} then nullif(min('9999', ${cases.join(", ")}), '9999')`;
  });
  return sql.raw(`case "reviews"."tenant_id" ${branches.join(" ")} end`);
}

/**
 * The response rows of the target, by the reviews' arrival day. First response = the earliest response
 * published here; a review answered on the site itself (status responded, nothing published here)
 * counts as responded and, when an SLA covers it, as met, with no response time. `due` may be given
 * when the caller already read the tenants' rules (dueExpression).
 */
export async function responseStatements(db: Db, target: RollupTarget, due?: SQL): Promise<SQL[]> {
  due ??= await dueExpression(db, tenantsOf(target));
  const src = source("reviews", "created_at", target);
  return [
    deleteRows(db, analyticsResponseDaily, target),
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
          from ${src.from}
          where ${src.where}
        )
      )
      group by tenant_id, day, location_id`,
  ];
}

export const recomputeFunnel = (db: Db, target: RollupTarget) => atomically(db, funnelStatements(db, target));
export const recomputeReviews = (db: Db, target: RollupTarget) => atomically(db, reviewStatements(db, target));
export const recomputeResponses = async (db: Db, target: RollupTarget) =>
  atomically(db, await responseStatements(db, target));

/** Every rollup of the target. */
export async function recomputeAll(db: Db, target: RollupTarget) {
  await recomputeFunnel(db, target);
  await recomputeReviews(db, target);
  await recomputeResponses(db, target);
}
