import { and, count, eq } from "drizzle-orm";
import { webhookSubscriptions } from "../../db/schema";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { openAtRest, sealAtRest } from "../../lib/crypto";
import { conflict, notFound, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { allowInsecureWebhooks, checkOutboundUrl } from "../../lib/ssrf";
import { nowIso } from "../../lib/time";
import { type CreateWebhookInput, toWebhook, type UpdateWebhookInput, type WebhookRow } from "./schemas";
import { newWebhookSecret } from "./signing";

export const sealSecret = (env: Env, secret: string) => sealAtRest(env, secret, "Webhook secrets");
export const openSecret = (env: Env, row: Pick<WebhookRow, "secretEncrypted">) =>
  openAtRest(env, row.secretEncrypted, "Webhook secrets");

/** A URL the SSRF guard refuses is a 400 on the url field. */
export function assertDeliverableUrl(env: Env, url: string, path = "url") {
  const check = checkOutboundUrl(url, { allowInsecure: allowInsecureWebhooks(env) });
  if (!check.ok) throw validationError([{ path, message: `URL refused: ${check.reason}` }]);
  return check.url.toString();
}

/** What audit rows may show: never the sealed secret. */
const auditable = ({ secretEncrypted: _s, ...rest }: WebhookRow) => rest;

export async function listWebhooks(ctx: ServiceContext, q: PageQuery) {
  const where = eq(webhookSubscriptions.tenantId, ctx.tenantId);
  return keysetPage(ctx.db, {
    query: q,
    sort: [webhookSubscriptions.createdAt, webhookSubscriptions.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(webhookSubscriptions)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(webhookSubscriptions).where(where),
    key: (r) => [r.createdAt, r.id],
    map: toWebhook,
  });
}

export async function findWebhookRow(ctx: Pick<ServiceContext, "db" | "tenantId">, id: string) {
  const row = await ctx.db
    .select()
    .from(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Webhook subscription");
  return row;
}

export const getWebhook = async (ctx: ServiceContext, id: string) => toWebhook(await findWebhookRow(ctx, id));

/** Endpoints per tenant: every event fans out to each of them. */
export const MAX_WEBHOOKS_PER_TENANT = 50;

export async function createWebhook(ctx: ServiceContext, input: CreateWebhookInput) {
  const url = assertDeliverableUrl(ctx.env, input.url);
  const existing = await ctx.db
    .select({ n: count() })
    .from(webhookSubscriptions)
    .where(eq(webhookSubscriptions.tenantId, ctx.tenantId))
    .get();
  if ((existing?.n ?? 0) >= MAX_WEBHOOKS_PER_TENANT)
    throw conflict(`A tenant can have at most ${MAX_WEBHOOKS_PER_TENANT} webhook subscriptions`);
  const secret = newWebhookSecret();
  const now = nowIso();
  const row: WebhookRow = {
    id: newId(),
    tenantId: ctx.tenantId,
    url,
    description: input.description ?? null,
    events: input.events,
    isActive: input.isActive ?? true,
    secretEncrypted: await sealSecret(ctx.env, secret),
    failingSince: null,
    consecutiveFailures: 0,
    disabledAt: null,
    disabledReason: null,
    createdAt: now,
    updatedAt: now,
  };
  await commit(ctx, [
    ctx.db.insert(webhookSubscriptions).values(row),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "webhook.created",
      resourceType: "webhook_subscription",
      resourceId: row.id,
      nextState: auditable(row),
    }),
  ]);
  return { ...toWebhook(row), secret };
}

export async function updateWebhook(ctx: ServiceContext, id: string, patch: UpdateWebhookInput) {
  const before = await findWebhookRow(ctx, id);
  const after: WebhookRow = { ...before, ...patch, updatedAt: nowIso() };
  if (patch.url !== undefined) after.url = assertDeliverableUrl(ctx.env, patch.url);
  if (patch.isActive === true && !before.isActive) {
    // re-enabling starts the failure bookkeeping afresh
    Object.assign(after, { failingSince: null, consecutiveFailures: 0, disabledAt: null, disabledReason: null });
  }
  const { id: _id, tenantId: _t, createdAt: _c, secretEncrypted: _s, ...set } = after;
  await commit(ctx, [
    ctx.db
      .update(webhookSubscriptions)
      .set(set)
      .where(and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "webhook.updated",
      resourceType: "webhook_subscription",
      resourceId: id,
      previousState: auditable(before),
      nextState: auditable(after),
    }),
  ]);
  return toWebhook(after);
}

export async function deleteWebhook(ctx: ServiceContext, id: string) {
  const before = await findWebhookRow(ctx, id);
  await commit(ctx, [
    ctx.db
      .delete(webhookSubscriptions)
      .where(and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "webhook.deleted",
      resourceType: "webhook_subscription",
      resourceId: id,
      previousState: auditable(before),
    }),
  ]);
}

/** A new secret replaces the old one at once; deliveries signed from now on use it. */
export async function rotateWebhookSecret(ctx: ServiceContext, id: string) {
  await findWebhookRow(ctx, id);
  const secret = newWebhookSecret();
  const now = nowIso();
  await commit(ctx, [
    ctx.db
      .update(webhookSubscriptions)
      .set({ secretEncrypted: await sealSecret(ctx.env, secret), updatedAt: now })
      .where(and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "webhook.secret_rotated",
      resourceType: "webhook_subscription",
      resourceId: id,
      metadata: { rotatedAt: now },
    }),
  ]);
  return { id, secret };
}
