import { and, count, eq } from "drizzle-orm";
import { automationRules, automationRuns, brands, campaigns, locations, templates } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { notFound, type ValidationIssue, validationError } from "../../lib/errors";
import type { EventType } from "../../lib/events";
import { newId } from "../../lib/ids";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { allowInsecureWebhooks, checkOutboundUrl } from "../../lib/ssrf";
import { nowIso } from "../../lib/time";
import { sealSecret } from "../outgoing-webhooks/service";
import { newWebhookSecret } from "../outgoing-webhooks/signing";
import { tenantMembers } from "../users/membership";
import { conditionIssues } from "./conditions";
import { type ActionInput, type CreateRuleInput, type RuleRow, toRule, toRun, type UpdateRuleInput } from "./schemas";

export async function listRules(ctx: ServiceContext, q: PageQuery & { triggerEventType?: string }) {
  const where = and(
    eq(automationRules.tenantId, ctx.tenantId),
    q.triggerEventType ? eq(automationRules.triggerEventType, q.triggerEventType) : undefined,
  );
  return keysetPage(ctx.db, {
    query: q,
    sort: [automationRules.createdAt, automationRules.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(automationRules)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(automationRules).where(where),
    key: (r) => [r.createdAt, r.id],
    map: toRule,
  });
}

export async function findRuleRow(ctx: ServiceContext, id: string) {
  const row = await ctx.db
    .select()
    .from(automationRules)
    .where(and(eq(automationRules.id, id), eq(automationRules.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Automation rule");
  return row;
}

export const getRule = async (ctx: ServiceContext, id: string) => toRule(await findRuleRow(ctx, id));

async function exists(
  ctx: ServiceContext,
  table: typeof locations | typeof brands | typeof campaigns | typeof templates,
  id: string,
) {
  return Boolean(
    await ctx.db
      .select({ id: table.id })
      .from(table)
      .where(and(eq(table.id, id), eq(table.tenantId, ctx.tenantId)))
      .get(),
  );
}

/** Everything a rule refers to must be this tenant's, and its conditions must fit the trigger's payload. */
async function checkRule(
  ctx: ServiceContext,
  r: Pick<RuleRow, "triggerEventType" | "locationId" | "brandId" | "conditions"> & { actions: ActionInput[] },
) {
  const issues: ValidationIssue[] = conditionIssues(r.triggerEventType as EventType, r.conditions);
  if (r.locationId && !(await exists(ctx, locations, r.locationId)))
    issues.push({ path: "locationId", message: "Unknown location" });
  if (r.brandId && !(await exists(ctx, brands, r.brandId))) issues.push({ path: "brandId", message: "Unknown brand" });
  const users = await tenantMembers(
    ctx.control,
    ctx.tenantId,
    r.actions.flatMap((a) => (a.type === "assign_inbox" ? [a.config.userId] : [])),
  );
  for (const [i, a] of r.actions.entries()) {
    const at = `actions.${i}.config`;
    if (a.type === "send_webhook") {
      const check = checkOutboundUrl(a.config.url, { allowInsecure: allowInsecureWebhooks(ctx.env) });
      if (!check.ok) issues.push({ path: `${at}.url`, message: `URL refused: ${check.reason}` });
    }
    if (a.type === "assign_inbox" && !users.has(a.config.userId))
      issues.push({ path: `${at}.userId`, message: "Not a user of this tenant" });
    if (a.type === "send_solicitation") {
      if (a.config.campaignId && !(await exists(ctx, campaigns, a.config.campaignId)))
        issues.push({ path: `${at}.campaignId`, message: "Unknown campaign" });
      if (a.config.templateId && !(await exists(ctx, templates, a.config.templateId)))
        issues.push({ path: `${at}.templateId`, message: "Unknown template" });
    }
  }
  if (issues.length) throw validationError(issues);
}

const auditable = ({ signingSecretEncrypted, ...rest }: RuleRow) => ({
  ...rest,
  hasSigningSecret: signingSecretEncrypted !== null,
});

/** A rule with a send_webhook action gets its own whsec_ secret the first time; returned once. */
async function ensureSigningSecret(ctx: ServiceContext, row: RuleRow): Promise<string | undefined> {
  if (row.signingSecretEncrypted || !row.actions.some((a) => a.type === "send_webhook")) return undefined;
  const secret = newWebhookSecret();
  row.signingSecretEncrypted = await sealSecret(ctx.env, secret);
  return secret;
}

export async function createRule(ctx: ServiceContext, input: CreateRuleInput) {
  const now = nowIso();
  const row: RuleRow = {
    id: newId(),
    tenantId: ctx.tenantId,
    name: input.name,
    triggerEventType: input.triggerEventType,
    locationId: input.locationId ?? null,
    brandId: input.brandId ?? null,
    isActive: input.isActive ?? true,
    conditions: input.conditions,
    actions: input.actions,
    signingSecretEncrypted: null,
    createdAt: now,
    updatedAt: now,
  };
  await checkRule(ctx, { ...row, actions: input.actions });
  const signingSecret = await ensureSigningSecret(ctx, row);
  await commit(ctx, [
    ctx.db.insert(automationRules).values(row),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "automation_rule.created",
      resourceType: "automation_rule",
      resourceId: row.id,
      nextState: auditable(row),
    }),
  ]);
  return { ...toRule(row), ...(signingSecret ? { signingSecret } : {}) };
}

export async function updateRule(ctx: ServiceContext, id: string, patch: UpdateRuleInput) {
  const before = await findRuleRow(ctx, id);
  const after: RuleRow = { ...before, ...patch, updatedAt: nowIso() };
  // a new trigger re-checks the stored conditions too
  await checkRule(ctx, { ...after, actions: after.actions as ActionInput[] });
  const signingSecret = await ensureSigningSecret(ctx, after);
  const { id: _id, tenantId: _t, createdAt: _c, ...set } = after;
  await commit(ctx, [
    ctx.db
      .update(automationRules)
      .set(set)
      .where(and(eq(automationRules.id, id), eq(automationRules.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "automation_rule.updated",
      resourceType: "automation_rule",
      resourceId: id,
      previousState: auditable(before),
      nextState: auditable(after),
    }),
  ]);
  return { ...toRule(after), ...(signingSecret ? { signingSecret } : {}) };
}

export async function deleteRule(ctx: ServiceContext, id: string) {
  const before = await findRuleRow(ctx, id);
  await commit(ctx, [
    ctx.db.delete(automationRules).where(and(eq(automationRules.id, id), eq(automationRules.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "automation_rule.deleted",
      resourceType: "automation_rule",
      resourceId: id,
      previousState: auditable(before),
    }),
  ]);
}

export async function listRuns(ctx: ServiceContext, ruleId: string, q: PageQuery) {
  await findRuleRow(ctx, ruleId);
  const where = and(eq(automationRuns.tenantId, ctx.tenantId), eq(automationRuns.ruleId, ruleId));
  return keysetPage(ctx.db, {
    query: q,
    sort: [automationRuns.createdAt, automationRuns.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(automationRuns)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(automationRuns).where(where),
    key: (r) => [r.createdAt, r.id],
    map: toRun,
  });
}
