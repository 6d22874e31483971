import { and, count, eq, gte, inArray, lte } from "drizzle-orm";
import { type RecommendationStatus, recommendations } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { isUniqueViolation } from "../../lib/db-errors";
import { conflict, notFound, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage } from "../../lib/pagination";
import { nowIso } from "../../lib/time";
import { executeAction } from "./actions";
import {
  type CreateRecommendation,
  CreateRecommendationInput,
  type RecommendationListInput,
  type RecommendationRow,
  toRecommendation,
} from "./schemas";
import { nextStatus, OPEN_STATUSES, type RecommendationMove } from "./states";

/** A rejected or applied recommendation is not raised again for the same rule and scope for this long. */
export const COOLDOWN_DAYS = 30;

const byId = (ctx: ServiceContext, id: string) =>
  and(eq(recommendations.id, id), eq(recommendations.tenantId, ctx.tenantId));

export async function findRecommendationRow(ctx: ServiceContext, id: string): Promise<RecommendationRow> {
  const row = await ctx.db.select().from(recommendations).where(byId(ctx, id)).get();
  if (!row) throw notFound("Recommendation");
  return row;
}

export const getRecommendation = async (ctx: ServiceContext, id: string) =>
  toRecommendation(await findRecommendationRow(ctx, id));

export async function listRecommendations(ctx: ServiceContext, q: RecommendationListInput) {
  const where = and(
    eq(recommendations.tenantId, ctx.tenantId),
    q.status ? eq(recommendations.status, q.status) : undefined,
    q.priority ? eq(recommendations.priority, q.priority) : undefined,
    q.riskLevel ? eq(recommendations.riskLevel, q.riskLevel) : undefined,
    q.scopeType ? eq(recommendations.scopeType, q.scopeType) : undefined,
    q.scopeId ? eq(recommendations.scopeId, q.scopeId) : undefined,
  );
  return keysetPage(ctx.db, {
    query: q,
    sort: [recommendations.createdAt, recommendations.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(recommendations)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(recommendations).where(where),
    key: (r) => [r.createdAt, r.id],
    map: toRecommendation,
  });
}

/**
 * For the MCP skill recommendation.list. `scope` is a scope type ("location") or "type:id"
 * ("location:abc"); limit 1..200 (default 25).
 */
export async function listRecommendationsForSkill(
  ctx: ServiceContext,
  input: { status?: RecommendationStatus; riskLevel?: "low" | "medium" | "high"; scope?: string; limit?: number },
) {
  const [scopeType, scopeId] = input.scope ? input.scope.split(":", 2) : [];
  const page = await listRecommendations(ctx, {
    status: input.status,
    riskLevel: input.riskLevel,
    scopeType: scopeType || undefined,
    scopeId: scopeId || undefined,
    limit: Math.min(200, Math.max(1, input.limit ?? 25)),
  });
  return page.data;
}

const dedupeKeyOf = (r: { type: string; scopeType: string; scopeId: string }) =>
  `${r.type}:${r.scopeType}:${r.scopeId}`;

/**
 * Raises a recommendation unless one is already open for the same rule and scope, or one was
 * rejected or applied within COOLDOWN_DAYS. Used by the generator and by automation rules'
 * create_recommendation action. Audited.
 */
export async function createRecommendation(
  ctx: ServiceContext,
  raw: CreateRecommendation,
): Promise<{ recommendation: ReturnType<typeof toRecommendation>; created: boolean }> {
  const parsed = CreateRecommendationInput.safeParse(raw);
  if (!parsed.success)
    throw validationError(parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })));
  const input = parsed.data;
  const dedupeKey = dedupeKeyOf(input);
  const cooldown = new Date(Date.now() - COOLDOWN_DAYS * 86_400_000).toISOString();
  const blocking =
    (await openRow(ctx, dedupeKey)) ??
    (await ctx.db
      .select()
      .from(recommendations)
      .where(
        and(
          eq(recommendations.tenantId, ctx.tenantId),
          eq(recommendations.dedupeKey, dedupeKey),
          inArray(recommendations.status, ["rejected", "applied"]),
          gte(recommendations.updatedAt, cooldown),
        ),
      )
      .get());
  if (blocking) return { recommendation: toRecommendation(blocking), created: false };
  const now = nowIso();
  const row: RecommendationRow = {
    ...input,
    id: newId(),
    tenantId: ctx.tenantId,
    status: "pending",
    dedupeKey,
    snoozedUntil: null,
    decidedByUserId: null,
    decidedAt: null,
    appliedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await commit(ctx, [
      ctx.db.insert(recommendations).values(row),
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "recommendation.created",
        resourceType: "recommendation",
        resourceId: row.id,
        nextState: toRecommendation(row),
      }),
    ]);
  } catch (e) {
    // a concurrent run raised the same one first
    if (!isUniqueViolation(e)) throw e;
    const winner = await openRow(ctx, dedupeKey);
    if (!winner) throw e;
    return { recommendation: toRecommendation(winner), created: false };
  }
  return { recommendation: toRecommendation(row), created: true };
}

/** The open recommendation of a rule and scope, if any. */
const openRow = (ctx: ServiceContext, dedupeKey: string) =>
  ctx.db
    .select()
    .from(recommendations)
    .where(
      and(
        eq(recommendations.tenantId, ctx.tenantId),
        eq(recommendations.dedupeKey, dedupeKey),
        inArray(recommendations.status, [...OPEN_STATUSES]),
      ),
    )
    .get();

const decider = (ctx: ServiceContext) =>
  ctx.actor.type === "user"
    ? ctx.actor.userId
    : ctx.actor.type === "api_key"
      ? `api_key:${ctx.actor.keyId}`
      : `system:${ctx.actor.name}`;

async function move(ctx: ServiceContext, id: string, name: RecommendationMove, extra: Partial<RecommendationRow> = {}) {
  const before = await findRecommendationRow(ctx, id);
  const status = nextStatus(before.status, name);
  const now = nowIso();
  const set: Partial<RecommendationRow> = {
    status,
    snoozedUntil: null,
    updatedAt: now,
    ...(name === "wake" ? {} : { decidedByUserId: decider(ctx), decidedAt: now }),
    ...extra,
  };
  const after = { ...before, ...set };
  await commit(ctx, [
    ctx.db
      .update(recommendations)
      .set(set)
      .where(and(byId(ctx, id), eq(recommendations.status, before.status))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: `recommendation.${name}`,
      resourceType: "recommendation",
      resourceId: id,
      previousState: toRecommendation(before),
      nextState: toRecommendation(after),
    }),
  ]);
  return toRecommendation(after);
}

export const acceptRecommendation = (ctx: ServiceContext, id: string) => move(ctx, id, "accept");
export const rejectRecommendation = (ctx: ServiceContext, id: string) => move(ctx, id, "reject");
export const snoozeRecommendation = (ctx: ServiceContext, id: string, until: string) =>
  move(ctx, id, "snooze", { snoozedUntil: new Date(until).toISOString() });
export const wakeRecommendation = (ctx: ServiceContext, id: string) => move(ctx, id, "wake");

/**
 * Executes the actionPayload through the normal services, then marks the recommendation applied.
 * The status is claimed first (a conditional update), so two concurrent applies cannot both run the
 * action; if the action fails, the claim is released and the error returned.
 */
export async function applyRecommendation(
  ctx: ServiceContext,
  id: string,
  input: { input?: Record<string, unknown> } = {},
) {
  const before = await findRecommendationRow(ctx, id);
  nextStatus(before.status, "apply");
  const now = nowIso();
  const claimed = await ctx.db
    .update(recommendations)
    .set({ status: "applied", appliedAt: now, decidedByUserId: decider(ctx), decidedAt: now, updatedAt: now })
    .where(and(byId(ctx, id), eq(recommendations.status, before.status)))
    .returning({ id: recommendations.id });
  if (!claimed.length) throw conflict("The recommendation changed meanwhile; read it again");
  let result: unknown;
  try {
    result = await executeAction(ctx, before.actionPayload, input.input);
  } catch (e) {
    const { status, appliedAt, decidedByUserId, decidedAt, updatedAt } = before;
    await ctx.db
      .update(recommendations)
      .set({ status, appliedAt, decidedByUserId, decidedAt, updatedAt })
      .where(byId(ctx, id));
    throw e;
  }
  const after = {
    ...before,
    status: "applied" as const,
    appliedAt: now,
    decidedByUserId: decider(ctx),
    decidedAt: now,
    updatedAt: now,
  };
  await commit(ctx, [
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "recommendation.apply",
      resourceType: "recommendation",
      resourceId: id,
      previousState: toRecommendation(before),
      nextState: toRecommendation(after),
      metadata: { input: input.input ?? null, result: result ?? null },
    }),
  ]);
  return toRecommendation(after);
}

/** Cron: snoozed recommendations whose time has come are pending again. */
export async function dueSnoozed(ctx: Pick<ServiceContext, "db">, now: Date, limit = 100) {
  return ctx.db
    .select({ id: recommendations.id, tenantId: recommendations.tenantId })
    .from(recommendations)
    .where(and(eq(recommendations.status, "snoozed"), lte(recommendations.snoozedUntil, now.toISOString())))
    .limit(limit);
}
