import { and, asc, count, eq } from "drizzle-orm";
import { alertSends, alertSubscriptions, locations, type TenantRole, webhookSubscriptions } from "../../db/schema";
import { mirrorUser } from "../../db/shards";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { forbidden, notFound, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { nowIso } from "../../lib/time";
import { roleAtLeast } from "../identity/access";
import { assertLocationRefs } from "../locations/refs";
import { assertTenantMember } from "../users/membership";
import { nextDue } from "./schedule";
import {
  type AlertSubscriptionRow,
  type CreateAlertSubscriptionInput,
  deliversSomething,
  NOTHING_TO_DELIVER,
  toAlertSend,
  toAlertSubscription,
  type UpdateAlertSubscriptionInput,
} from "./schemas";

/** Who is asking, and whether they may manage other users' alerts (manager and up). */
export interface AlertCaller {
  managesOthers: boolean;
}

/** The caller with this role on the tenant (REST's routes and the console's Alerts page alike). */
export const alertCallerFor = (role: TenantRole): AlertCaller => ({ managesOthers: roleAtLeast(role, "manager") });

const callerUserId = (ctx: ServiceContext) => (ctx.actor.type === "user" ? ctx.actor.userId : null);

async function assertWebhook(ctx: ServiceContext, webhookId: string | null | undefined) {
  if (!webhookId) return;
  const hook = await ctx.db
    .select({ id: webhookSubscriptions.id })
    .from(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.id, webhookId), eq(webhookSubscriptions.tenantId, ctx.tenantId)))
    .get();
  if (!hook) throw validationError([{ path: "webhookId", message: "Unknown webhook" }]);
}

/** Decided: the location's zone for a one-location subscription, else the tenant's first location's, else UTC. */
async function defaultTimeZone(ctx: ServiceContext, location: { timezone: string } | null) {
  if (location) return location.timezone;
  const first = await ctx.db
    .select({ timezone: locations.timezone })
    .from(locations)
    .where(eq(locations.tenantId, ctx.tenantId))
    .orderBy(asc(locations.createdAt), asc(locations.id))
    .limit(1)
    .get();
  return first?.timezone ?? "UTC";
}

const nextDigestAt = (
  row: Pick<AlertSubscriptionRow, "digestFrequency" | "digestHour" | "digestWeekday" | "timeZone" | "isActive">,
  now: Date,
) => (row.isActive ? (nextDue(row, now)?.at.toISOString() ?? null) : null);

export async function listAlertSubscriptions(
  ctx: ServiceContext,
  caller: AlertCaller,
  q: PageQuery & { userId?: string; locationId?: string },
) {
  // below manager only one's own; a caller that is no user (and manages nothing) matches no row
  const userId = caller.managesOthers ? q.userId : (callerUserId(ctx) ?? "");
  const where = and(
    eq(alertSubscriptions.tenantId, ctx.tenantId),
    userId !== undefined ? eq(alertSubscriptions.userId, userId) : undefined,
    q.locationId ? eq(alertSubscriptions.locationId, q.locationId) : undefined,
  );
  return keysetPage(ctx.db, {
    query: q,
    sort: [alertSubscriptions.createdAt, alertSubscriptions.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(alertSubscriptions)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(alertSubscriptions).where(where),
    key: (r) => [r.createdAt, r.id],
    map: toAlertSubscription,
  });
}

/** Another user's subscription is as absent as another tenant's unless the caller manages others. */
async function findRow(ctx: ServiceContext, caller: AlertCaller, id: string) {
  const row = await ctx.db
    .select()
    .from(alertSubscriptions)
    .where(and(eq(alertSubscriptions.id, id), eq(alertSubscriptions.tenantId, ctx.tenantId)))
    .get();
  if (!row || (!caller.managesOthers && row.userId !== callerUserId(ctx))) throw notFound("Alert subscription");
  return row;
}

export const getAlertSubscription = async (ctx: ServiceContext, caller: AlertCaller, id: string) =>
  toAlertSubscription(await findRow(ctx, caller, id));

export async function createAlertSubscription(
  ctx: ServiceContext,
  caller: AlertCaller,
  input: CreateAlertSubscriptionInput,
) {
  const self = callerUserId(ctx);
  const userId = input.userId ?? self;
  if (!userId) throw validationError([{ path: "userId", message: "Required when the caller is not a user" }]);
  if (userId !== self && !caller.managesOthers) throw forbidden("Only managers and up subscribe other users");
  // alerts go to people: the recipient must hold a role on this tenant
  await assertTenantMember(ctx, userId, {
    path: "userId",
    message: "Alerts go to users holding a role on this tenant",
  });
  // users are control-plane rows; the subscription references the user by foreign key, so the shard gets a stub of it
  await mirrorUser(ctx.env, ctx.db, userId);
  const location = (await assertLocationRefs(ctx, [input.locationId])).get(input.locationId ?? "") ?? null;
  await assertWebhook(ctx, input.webhookId);
  const now = new Date();
  const stamp = nowIso(now);
  const base = {
    id: newId(),
    tenantId: ctx.tenantId,
    userId,
    locationId: input.locationId ?? null,
    instantEmail: input.instantEmail,
    webhookId: input.webhookId ?? null,
    maxRating: input.maxRating ?? null,
    siteTypes: [...new Set(input.siteTypes)],
    keywords: [...new Set(input.keywords)],
    digestFrequency: input.digestFrequency,
    digestHour: input.digestHour,
    digestWeekday: input.digestWeekday,
    timeZone: input.timeZone ?? (await defaultTimeZone(ctx, location)),
    instantUnsubscribedAt: null,
    digestUnsubscribedAt: null,
    isActive: input.isActive,
    createdAt: stamp,
    updatedAt: stamp,
  };
  const row: AlertSubscriptionRow = { ...base, nextDigestAt: nextDigestAt(base, now) };
  await commit(ctx, [
    ctx.db.insert(alertSubscriptions).values(row),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "alert_subscription.created",
      resourceType: "alert_subscription",
      resourceId: row.id,
      nextState: row,
    }),
  ]);
  return toAlertSubscription(row);
}

export async function updateAlertSubscription(
  ctx: ServiceContext,
  caller: AlertCaller,
  id: string,
  patch: UpdateAlertSubscriptionInput,
) {
  const before = await findRow(ctx, caller, id);
  await assertLocationRefs(ctx, [patch.locationId]);
  if (patch.webhookId) await assertWebhook(ctx, patch.webhookId);
  const now = new Date();
  const merged = {
    ...before,
    ...patch,
    ...(patch.siteTypes ? { siteTypes: [...new Set(patch.siteTypes)] } : {}),
    ...(patch.keywords ? { keywords: [...new Set(patch.keywords)] } : {}),
    updatedAt: nowIso(now),
  };
  if (!deliversSomething(merged)) throw validationError([NOTHING_TO_DELIVER]);
  const after: AlertSubscriptionRow = { ...merged, nextDigestAt: nextDigestAt(merged, now) };
  const { id: _i, tenantId: _t, createdAt: _c, ...set } = after;
  await commit(ctx, [
    ctx.db
      .update(alertSubscriptions)
      .set(set)
      .where(and(eq(alertSubscriptions.id, id), eq(alertSubscriptions.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "alert_subscription.updated",
      resourceType: "alert_subscription",
      resourceId: id,
      previousState: before,
      nextState: after,
    }),
  ]);
  return toAlertSubscription(after);
}

export async function deleteAlertSubscription(ctx: ServiceContext, caller: AlertCaller, id: string) {
  const before = await findRow(ctx, caller, id);
  await commit(ctx, [
    ctx.db.delete(alertSends).where(and(eq(alertSends.subscriptionId, id), eq(alertSends.tenantId, ctx.tenantId))),
    ctx.db
      .delete(alertSubscriptions)
      .where(and(eq(alertSubscriptions.id, id), eq(alertSubscriptions.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "alert_subscription.deleted",
      resourceType: "alert_subscription",
      resourceId: id,
      previousState: before,
    }),
  ]);
}

/** What went out for one subscription, newest first by creation (keyset on created_at, id). */
export async function listAlertSends(ctx: ServiceContext, caller: AlertCaller, id: string, q: PageQuery) {
  await findRow(ctx, caller, id);
  const where = and(eq(alertSends.tenantId, ctx.tenantId), eq(alertSends.subscriptionId, id));
  return keysetPage(ctx.db, {
    query: q,
    sort: [alertSends.createdAt, alertSends.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(alertSends)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(alertSends).where(where),
    key: (r) => [r.createdAt, r.id],
    map: toAlertSend,
  });
}
