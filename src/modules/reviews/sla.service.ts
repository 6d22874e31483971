import { and, asc, count, eq, inArray, lte, or, type SQL } from "drizzle-orm";
import { inboxItems, reviews, type SlaFilter, slaRules } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { notFound, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { addHours, nowIso } from "../../lib/time";
import { assertLocationRefs } from "../locations/refs";
import { toReview } from "./schemas";
import {
  type CreateSlaRuleInput,
  type SlaRuleRow,
  toSlaRule,
  type UpdateSlaRuleInput,
  windowIssue,
  windowOrder,
} from "./sla.schemas";

export async function listSlaRules(ctx: ServiceContext, q: PageQuery & { isActive?: boolean }) {
  const where = and(
    eq(slaRules.tenantId, ctx.tenantId),
    q.isActive === undefined ? undefined : eq(slaRules.isActive, q.isActive),
  );
  return keysetPage(ctx.db, {
    query: q,
    sort: [slaRules.createdAt, slaRules.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(slaRules)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(slaRules).where(where),
    key: (r) => [r.createdAt, r.id],
    map: toSlaRule,
  });
}

async function findRuleRow(ctx: ServiceContext, id: string) {
  const row = await ctx.db
    .select()
    .from(slaRules)
    .where(and(eq(slaRules.id, id), eq(slaRules.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("SLA rule");
  return row;
}

export const getSlaRule = async (ctx: ServiceContext, id: string) => toSlaRule(await findRuleRow(ctx, id));

export async function createSlaRule(ctx: ServiceContext, input: CreateSlaRuleInput) {
  await assertLocationRefs(ctx, input.filter.locationId ?? [], "filter.locationId");
  const now = nowIso();
  const row: SlaRuleRow = {
    id: newId(),
    tenantId: ctx.tenantId,
    name: input.name,
    filter: input.filter,
    responseWindowHours: input.responseWindowHours,
    escalateAfterHours: input.escalateAfterHours,
    escalateToRole: input.escalateToRole ?? null,
    isActive: input.isActive ?? true,
    createdAt: now,
    updatedAt: now,
  };
  await commit(ctx, [
    ctx.db.insert(slaRules).values(row),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "sla_rule.created",
      resourceType: "sla_rule",
      resourceId: row.id,
      nextState: row,
    }),
  ]);
  return toSlaRule(row);
}

export async function updateSlaRule(ctx: ServiceContext, id: string, patch: UpdateSlaRuleInput) {
  const before = await findRuleRow(ctx, id);
  const after: SlaRuleRow = { ...before, ...patch, updatedAt: nowIso() };
  if (!windowOrder(after)) throw validationError([{ path: windowIssue.path.join("."), message: windowIssue.message }]);
  if (patch.filter) await assertLocationRefs(ctx, patch.filter.locationId ?? [], "filter.locationId");
  await commit(ctx, [
    ctx.db
      .update(slaRules)
      .set({ ...patch, updatedAt: after.updatedAt })
      .where(and(eq(slaRules.id, id), eq(slaRules.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "sla_rule.updated",
      resourceType: "sla_rule",
      resourceId: id,
      previousState: before,
      nextState: after,
    }),
  ]);
  return toSlaRule(after);
}

export async function deleteSlaRule(ctx: ServiceContext, id: string) {
  const before = await findRuleRow(ctx, id);
  await commit(ctx, [
    ctx.db.delete(slaRules).where(and(eq(slaRules.id, id), eq(slaRules.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "sla_rule.deleted",
      resourceType: "sla_rule",
      resourceId: id,
      previousState: before,
    }),
  ]);
}

/** The rule's filter as SQL over reviews. */
export function ruleFilter(f: SlaFilter): SQL | undefined {
  return and(
    f.rating?.length ? inArray(reviews.rating, f.rating) : undefined,
    f.siteType?.length ? inArray(reviews.siteType, f.siteType) : undefined,
    f.sentiment?.length ? inArray(reviews.sentiment, f.sentiment) : undefined,
    f.locationId?.length ? inArray(reviews.locationId, f.locationId) : undefined,
  );
}

export const activeRules = (ctx: Pick<ServiceContext, "db" | "tenantId">) =>
  ctx.db
    .select()
    .from(slaRules)
    .where(and(eq(slaRules.tenantId, ctx.tenantId), eq(slaRules.isActive, true)))
    .orderBy(asc(slaRules.createdAt))
    .limit(100);

const hoursBefore = (now: Date, h: number) => addHours(now, -h).toISOString();

/**
 * The reviews past their SLA at `now` (what listOverdue answers, unpaged): still without a response
 * (status new) and older than the response window of an active rule that covers them. `ids` is a
 * subquery of their ids (range seek on (tenant_id, status, created_at)); `arrivedBy` the latest
 * arrival that can be past due (the shortest window), for the caller's own index range. null: the
 * tenant has no active rule, so nothing is past due.
 */
export async function pastDueReviews(ctx: Pick<ServiceContext, "db" | "tenantId">, now = new Date()) {
  const rules = await activeRules(ctx);
  if (!rules.length) return null;
  const arrivedBy = hoursBefore(now, Math.min(...rules.map((r) => r.responseWindowHours)));
  const ids = ctx.db
    .select({ id: reviews.id })
    .from(reviews)
    .where(
      and(
        eq(reviews.tenantId, ctx.tenantId),
        eq(reviews.status, "new"),
        lte(reviews.createdAt, arrivedBy),
        or(
          ...rules.map((r) =>
            and(ruleFilter(r.filter), lte(reviews.createdAt, hoursBefore(now, r.responseWindowHours))),
          ),
        ),
      ),
    );
  return { ids, arrivedBy };
}

/**
 * GET /v1/responses/overdue: reviews still without a published response after the response window
 * of an active rule that covers them, most overdue first. A review several rules cover is due by
 * the earliest of their windows.
 */
export async function listOverdue(ctx: ServiceContext, q: { limit: number }, now = new Date()) {
  const rules = await activeRules(ctx);
  const due = new Map<
    string,
    {
      review: ReturnType<typeof toReview>;
      sla: { ruleId: string; ruleName: string; dueAt: string; escalateAt: string; escalatedAt: string | null };
    }
  >();
  for (const rule of rules) {
    const rows = await ctx.db
      .select({ review: reviews, escalatedAt: inboxItems.escalatedAt })
      .from(reviews)
      .leftJoin(inboxItems, and(eq(inboxItems.reviewId, reviews.id), eq(inboxItems.tenantId, reviews.tenantId)))
      .where(
        and(
          eq(reviews.tenantId, ctx.tenantId),
          eq(reviews.status, "new"),
          lte(reviews.createdAt, hoursBefore(now, rule.responseWindowHours)),
          ruleFilter(rule.filter),
        ),
      )
      .orderBy(asc(reviews.createdAt), asc(reviews.id))
      .limit(q.limit);
    for (const { review, escalatedAt } of rows) {
      const created = new Date(review.createdAt);
      const dueAt = addHours(created, rule.responseWindowHours).toISOString();
      const current = due.get(review.id);
      if (current && current.sla.dueAt <= dueAt) continue;
      due.set(review.id, {
        review: toReview(review),
        sla: {
          ruleId: rule.id,
          ruleName: rule.name,
          dueAt,
          escalateAt: addHours(created, rule.escalateAfterHours).toISOString(),
          escalatedAt,
        },
      });
    }
  }
  return [...due.values()]
    .sort((a, b) => a.sla.dueAt.localeCompare(b.sla.dueAt) || a.review.id.localeCompare(b.review.id))
    .slice(0, q.limit)
    .map(({ review, sla }) => ({ ...review, sla }));
}
