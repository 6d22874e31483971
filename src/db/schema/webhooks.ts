import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, timestamp, updatedAt } from "./columns";
import { tenants } from "./tenancy";

/**
 * An outbound webhook endpoint. The signing secret is stored sealed (encryptSecret) and shown only
 * when created or rotated. failingSince/consecutiveFailures drive the automatic disable.
 */
export const webhookSubscriptions = sqliteTable(
  "webhook_subscriptions",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    url: text("url").notNull(),
    description: text("description"),
    /** event types, or ["*"] for all */
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    secretEncrypted: text("secret_encrypted").notNull(),
    /** first failed attempt since the last success; null while healthy */
    failingSince: timestamp("failing_since"),
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    disabledAt: timestamp("disabled_at"),
    disabledReason: text("disabled_reason"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("webhook_subscriptions_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("webhook_subscriptions_tenant_active_idx").on(t.tenantId, t.isActive),
  ],
);

export const WEBHOOK_DELIVERY_STATUSES = ["pending", "succeeded", "failed", "cancelled"] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/**
 * One message to one subscription, with the outcome of its latest attempt. A redelivery is a new
 * row with the same messageId (the webhook-id header), so receivers can dedupe it.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    subscriptionId: text("subscription_id")
      .notNull()
      .references(() => webhookSubscriptions.id, { onDelete: "cascade" }),
    /** the webhook-id header: stable across retries and redeliveries */
    messageId: text("message_id").notNull(),
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    /** the exact JSON body that is signed and sent */
    payload: text("payload").notNull(),
    redeliveryOf: text("redelivery_of"),
    status: text("status", { enum: WEBHOOK_DELIVERY_STATUSES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    latencyMs: integer("latency_ms"),
    error: text("error"),
    lastAttemptAt: timestamp("last_attempt_at"),
    nextAttemptAt: timestamp("next_attempt_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("webhook_deliveries_subscription_created_idx").on(t.tenantId, t.subscriptionId, t.createdAt, t.id),
    index("webhook_deliveries_subscription_idx").on(t.subscriptionId),
    /** one delivery per (subscription, event): a re-run of the fan-out cannot duplicate it */
    uniqueIndex("webhook_deliveries_event_uq").on(t.subscriptionId, t.eventId).where(sql`redelivery_of is null`),
  ],
);
