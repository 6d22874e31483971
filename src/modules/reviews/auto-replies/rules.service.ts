import { and, count, eq } from "drizzle-orm";
import { autoReplyRules, autoReplySettings } from "../../../db/schema";
import { auditStatement } from "../../../lib/audit";
import { commit } from "../../../lib/commit";
import type { ServiceContext } from "../../../lib/context";
import { notFound, validationError } from "../../../lib/errors";
import { newId } from "../../../lib/ids";
import { keysetPage, type PageQuery } from "../../../lib/pagination";
import { nowIso } from "../../../lib/time";
import { assertLocationRefs } from "../../locations/refs";
import {
  type AutoReplyRuleRow,
  type CreateAutoReplyRuleInput,
  ruleIssues,
  toAutoReplyRule,
  type UpdateAutoReplyRuleInput,
} from "./schemas";

export async function autoPublishEnabled(ctx: ServiceContext): Promise<boolean> {
  const row = await ctx.db.select().from(autoReplySettings).where(eq(autoReplySettings.tenantId, ctx.tenantId)).get();
  return row?.autoPublishEnabled ?? false;
}

export async function getAutoReplySettings(ctx: ServiceContext) {
  const row = await ctx.db.select().from(autoReplySettings).where(eq(autoReplySettings.tenantId, ctx.tenantId)).get();
  return { autoPublishEnabled: row?.autoPublishEnabled ?? false, updatedAt: row?.updatedAt ?? null };
}

export async function updateAutoReplySettings(ctx: ServiceContext, input: { autoPublishEnabled: boolean }) {
  const before = await getAutoReplySettings(ctx);
  const after = { autoPublishEnabled: input.autoPublishEnabled, updatedAt: nowIso() };
  await commit(ctx, [
    ctx.db
      .insert(autoReplySettings)
      .values({ tenantId: ctx.tenantId, ...after })
      .onConflictDoUpdate({ target: autoReplySettings.tenantId, set: after }),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "auto_reply_settings.updated",
      resourceType: "auto_reply_settings",
      resourceId: ctx.tenantId,
      previousState: before,
      nextState: after,
    }),
  ]);
  return after;
}

export async function listAutoReplyRules(
  ctx: ServiceContext,
  q: PageQuery & { locationId?: string; isActive?: boolean },
) {
  const where = and(
    eq(autoReplyRules.tenantId, ctx.tenantId),
    q.locationId ? eq(autoReplyRules.locationId, q.locationId) : undefined,
    q.isActive === undefined ? undefined : eq(autoReplyRules.isActive, q.isActive),
  );
  return keysetPage(ctx.db, {
    query: q,
    sort: [autoReplyRules.createdAt, autoReplyRules.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(autoReplyRules)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(autoReplyRules).where(where),
    key: (r) => [r.createdAt, r.id],
    map: toAutoReplyRule,
  });
}

async function findRuleRow(ctx: ServiceContext, id: string) {
  const row = await ctx.db
    .select()
    .from(autoReplyRules)
    .where(and(eq(autoReplyRules.id, id), eq(autoReplyRules.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Auto-reply rule");
  return row;
}

export const getAutoReplyRule = async (ctx: ServiceContext, id: string) => toAutoReplyRule(await findRuleRow(ctx, id));

/** A rule that publishes on its own needs the tenant's opt-in first. */
async function assertPublishAllowed(ctx: ServiceContext, rule: Pick<AutoReplyRuleRow, "mode" | "isActive">) {
  if (rule.mode === "auto_publish" && rule.isActive && !(await autoPublishEnabled(ctx))) {
    throw validationError([
      {
        path: "mode",
        message: "auto_publish needs the tenant's opt-in (PUT /v1/settings/auto-replies {autoPublishEnabled: true})",
      },
    ]);
  }
}

export async function createAutoReplyRule(ctx: ServiceContext, input: CreateAutoReplyRuleInput) {
  await assertLocationRefs(ctx, [input.locationId]);
  const now = nowIso();
  const row: AutoReplyRuleRow = {
    id: newId(),
    tenantId: ctx.tenantId,
    name: input.name,
    locationId: input.locationId ?? null,
    siteType: input.siteType ?? null,
    ratings: [...new Set(input.ratings)].sort(),
    allowLowRatings: input.allowLowRatings,
    textCondition: input.textCondition,
    keywords: [...new Set(input.keywords)],
    source: input.source,
    template: input.template ?? null,
    mode: input.mode,
    delayMinutes: input.delayMinutes ?? null,
    isActive: input.isActive,
    createdAt: now,
    updatedAt: now,
  };
  await assertPublishAllowed(ctx, row);
  await commit(ctx, [
    ctx.db.insert(autoReplyRules).values(row),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "auto_reply_rule.created",
      resourceType: "auto_reply_rule",
      resourceId: row.id,
      nextState: row,
    }),
  ]);
  return toAutoReplyRule(row);
}

export async function updateAutoReplyRule(ctx: ServiceContext, id: string, patch: UpdateAutoReplyRuleInput) {
  const before = await findRuleRow(ctx, id);
  const after: AutoReplyRuleRow = {
    ...before,
    ...patch,
    ...(patch.ratings ? { ratings: [...new Set(patch.ratings)].sort() } : {}),
    ...(patch.keywords ? { keywords: [...new Set(patch.keywords)] } : {}),
    // switching back to approval drops the delay rather than failing on a leftover
    ...(patch.mode === "approval" && patch.delayMinutes === undefined ? { delayMinutes: null } : {}),
    updatedAt: nowIso(),
  };
  const issues = ruleIssues(after);
  if (issues.length) throw validationError(issues);
  await assertLocationRefs(ctx, [patch.locationId]);
  await assertPublishAllowed(ctx, after);
  const { id: _id, tenantId: _t, createdAt: _c, ...set } = after;
  await commit(ctx, [
    ctx.db
      .update(autoReplyRules)
      .set(set)
      .where(and(eq(autoReplyRules.id, id), eq(autoReplyRules.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "auto_reply_rule.updated",
      resourceType: "auto_reply_rule",
      resourceId: id,
      previousState: before,
      nextState: after,
    }),
  ]);
  return toAutoReplyRule(after);
}

export async function deleteAutoReplyRule(ctx: ServiceContext, id: string) {
  const before = await findRuleRow(ctx, id);
  await commit(ctx, [
    ctx.db.delete(autoReplyRules).where(and(eq(autoReplyRules.id, id), eq(autoReplyRules.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "auto_reply_rule.deleted",
      resourceType: "auto_reply_rule",
      resourceId: id,
      previousState: before,
    }),
  ]);
}
