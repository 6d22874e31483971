import { and, eq, isNull } from "drizzle-orm";
import type { ShardDb } from "../../db/client";
import { webhookDeliveries, webhookSubscriptions } from "../../db/schema";
import type { Env } from "../../env";
import type { EventEnvelope } from "../../lib/events";
import { chunkRows, inJson } from "../../lib/sql";
import { nowIso } from "../../lib/time";
import { deliveryBody, pendingDelivery, type WebhookDeliveryMessage } from "./delivery";

const SEND_BATCH = 100;

export const subscribes = (events: string[], type: string) => events.includes("*") || events.includes(type);

export interface MessageSink {
  sendBatch(messages: { body: WebhookDeliveryMessage }[]): Promise<unknown>;
}

/** EVENTS pre-filter: one read of the batch's tenants' active subscriptions; events nobody subscribes to are skipped. */
export async function subscribedEvents(
  events: EventEnvelope[],
  _env: Env,
  shard: ShardDb,
): Promise<(event: EventEnvelope) => boolean> {
  const tenants = [...new Set(events.map((e) => e.tenantId))];
  const subs = await shard
    .select({ tenantId: webhookSubscriptions.tenantId, events: webhookSubscriptions.events })
    .from(webhookSubscriptions)
    .where(and(inJson(webhookSubscriptions.tenantId, tenants), eq(webhookSubscriptions.isActive, true)));
  return (event) => subs.some((s) => s.tenantId === event.tenantId && subscribes(s.events, event.type));
}

/**
 * EVENTS handler: one delivery row per active subscription that wants this event type, then one
 * WEBHOOKS message per delivery. A re-run (after a crash) finds the rows already there (unique per
 * subscription and event) and re-sends only the ones never attempted; the consumer skips the rest.
 */
export async function fanOutEvent(event: EventEnvelope, env: Env, db: ShardDb, queue: MessageSink = env.WEBHOOKS) {
  const subs = (
    await db
      .select()
      .from(webhookSubscriptions)
      .where(and(eq(webhookSubscriptions.tenantId, event.tenantId), eq(webhookSubscriptions.isActive, true)))
  ).filter((s) => subscribes(s.events, event.type));
  if (!subs.length) return 0;
  const now = nowIso();
  const body = deliveryBody(event);
  const rows = subs.map((s) =>
    pendingDelivery(
      { tenantId: event.tenantId, subscriptionId: s.id, eventId: event.id, eventType: event.type, payload: body },
      now,
    ),
  );
  const inserts = chunkRows(webhookDeliveries, rows).map((chunk) =>
    db.insert(webhookDeliveries).values(chunk).onConflictDoNothing(),
  );
  await db.batch(inserts as [(typeof inserts)[0], ...typeof inserts]);
  const toSend = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.tenantId, event.tenantId),
        eq(webhookDeliveries.eventId, event.id),
        isNull(webhookDeliveries.redeliveryOf),
        eq(webhookDeliveries.status, "pending"),
        eq(webhookDeliveries.attempts, 0),
      ),
    );
  for (let i = 0; i < toSend.length; i += SEND_BATCH) {
    await queue.sendBatch(
      toSend.slice(i, i + SEND_BATCH).map((d) => ({ body: { tenantId: event.tenantId, deliveryId: d.id } })),
    );
  }
  return toSend.length;
}
