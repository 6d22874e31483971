import { and, count, eq } from "drizzle-orm";
import { webhookDeliveries } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { conflict, notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { nowIso } from "../../lib/time";
import { WEBHOOK_TEST_EVENT } from "../events/catalogue";
import { attemptDelivery, deliveryBody, pendingDelivery } from "./delivery";
import { type DeliveryRow, toDelivery } from "./schemas";
import { findWebhookRow } from "./service";
import type { FetchFn } from "./transport";

export async function listDeliveries(
  ctx: ServiceContext,
  subscriptionId: string,
  q: PageQuery & { status?: DeliveryRow["status"] },
) {
  await findWebhookRow(ctx, subscriptionId);
  const where = and(
    eq(webhookDeliveries.tenantId, ctx.tenantId),
    eq(webhookDeliveries.subscriptionId, subscriptionId),
    q.status ? eq(webhookDeliveries.status, q.status) : undefined,
  );
  return keysetPage(ctx.db, {
    query: q,
    sort: [webhookDeliveries.createdAt, webhookDeliveries.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(webhookDeliveries)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(webhookDeliveries).where(where),
    key: (r) => [r.createdAt, r.id],
    map: toDelivery,
  });
}

/**
 * Sends a past delivery again as a new delivery row with the same webhook-id (receivers dedupe on
 * it) and body, with a fresh retry schedule. The endpoint must be active.
 */
export async function redeliver(ctx: ServiceContext, subscriptionId: string, deliveryId: string) {
  const sub = await findWebhookRow(ctx, subscriptionId);
  const original = await ctx.db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.id, deliveryId),
        eq(webhookDeliveries.subscriptionId, subscriptionId),
        eq(webhookDeliveries.tenantId, ctx.tenantId),
      ),
    )
    .get();
  if (!original) throw notFound("Webhook delivery");
  if (!sub.isActive) throw conflict("The webhook subscription is disabled; enable it before redelivering");
  const row = pendingDelivery({ ...original, redeliveryOf: original.id }, nowIso());
  await commit(ctx, [
    ctx.db.insert(webhookDeliveries).values(row),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "webhook.redelivered",
      resourceType: "webhook_delivery",
      resourceId: row.id,
      metadata: { subscriptionId, redeliveryOf: original.id, eventId: original.eventId },
    }),
  ]);
  await ctx.env.WEBHOOKS.send({ tenantId: ctx.tenantId, deliveryId: row.id });
  return toDelivery(row);
}

/**
 * POST /v1/webhooks/{id}/test: one signed webhook.test delivery, attempted now (also for a
 * disabled endpoint, to check it before re-enabling). Recorded in the log; never retried and it
 * does not count towards the endpoint's failure bookkeeping.
 */
export async function sendTestWebhook(ctx: ServiceContext, subscriptionId: string, fetchFn?: FetchFn) {
  const sub = await findWebhookRow(ctx, subscriptionId);
  const now = nowIso();
  const event = {
    id: `evt_test_${newId()}`,
    type: WEBHOOK_TEST_EVENT,
    occurredAt: now,
    tenantId: ctx.tenantId,
    data: { webhookId: sub.id, message: "This is a test delivery from the Reputation Operations API." },
  };
  const row = pendingDelivery(
    { tenantId: ctx.tenantId, subscriptionId, eventId: event.id, eventType: event.type, payload: deliveryBody(event) },
    now,
  );
  await commit(ctx, [
    ctx.db.insert(webhookDeliveries).values(row),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "webhook.tested",
      resourceType: "webhook_subscription",
      resourceId: sub.id,
      metadata: { deliveryId: row.id },
    }),
  ]);
  const result = await attemptDelivery(ctx.env, ctx.db, row, sub, { fetch: fetchFn, countTowardsHealth: false });
  return toDelivery(result.row);
}
