import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, timestamp, updatedAt } from "./columns";
import { users } from "./identity";
import { locations, tenants } from "./tenancy";

export const DIGEST_FREQUENCIES = ["none", "daily", "weekly"] as const;
export type DigestFrequency = (typeof DIGEST_FREQUENCIES)[number];

/**
 * One user's alerts for one location (or every location): an instant notice of each new review
 * that passes the filters (email and/or one of the tenant's webhooks), and a daily or weekly digest.
 */
export const alertSubscriptions = sqliteTable(
  "alert_subscriptions",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    /** null: every location of the tenant */
    locationId: text("location_id").references(() => locations.id),
    instantEmail: integer("instant_email", { mode: "boolean" }).notNull().default(true),
    /** one of the tenant's webhooks; no foreign key, so deleting the webhook stays possible (the alert then skips it) */
    webhookId: text("webhook_id"),
    /** alert on ratings <= maxRating; null: any rating */
    maxRating: integer("max_rating"),
    siteTypes: text("site_types", { mode: "json" }).$type<string[]>().notNull().default([]),
    keywords: text("keywords", { mode: "json" }).$type<string[]>().notNull().default([]),
    digestFrequency: text("digest_frequency", { enum: DIGEST_FREQUENCIES }).notNull().default("none"),
    /** local hour (0-23) the digest is due */
    digestHour: integer("digest_hour").notNull().default(8),
    /** weekly digests: ISO weekday, 1 = Monday .. 7 = Sunday */
    digestWeekday: integer("digest_weekday").notNull().default(1),
    /** IANA zone of the digest's hour and periods */
    timeZone: text("time_zone").notNull(),
    /** the next instant the digest is due (UTC); null when there is no digest */
    nextDigestAt: timestamp("next_digest_at"),
    instantUnsubscribedAt: timestamp("instant_unsubscribed_at"),
    digestUnsubscribedAt: timestamp("digest_unsubscribed_at"),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("alert_subscriptions_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("alert_subscriptions_tenant_active_idx").on(t.tenantId, t.isActive),
    index("alert_subscriptions_user_idx").on(t.userId),
    index("alert_subscriptions_location_idx").on(t.locationId),
    index("alert_subscriptions_webhook_idx").on(t.webhookId),
    index("alert_subscriptions_due_idx").on(t.nextDigestAt).where(sql`next_digest_at is not null`),
  ],
);

export const ALERT_SEND_KINDS = ["instant", "digest"] as const;
export const ALERT_SEND_STATUSES = ["sending", "sent", "skipped", "failed"] as const;

/**
 * What went out for a subscription, claimed before it is sent: the unique (subscription, key) —
 * review:{reviewId} for an instant alert, daily:{local date} / weekly:{local date} for a digest —
 * makes every alert and every period's digest go out at most once, whoever runs concurrently.
 */
export const alertSends = sqliteTable(
  "alert_sends",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    subscriptionId: text("subscription_id")
      .notNull()
      .references(() => alertSubscriptions.id),
    key: text("key").notNull(),
    kind: text("kind", { enum: ALERT_SEND_KINDS }).notNull(),
    status: text("status", { enum: ALERT_SEND_STATUSES }).notNull(),
    periodStart: timestamp("period_start"),
    periodEnd: timestamp("period_end"),
    summary: text("summary", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    error: text("error"),
    createdAt: createdAt(),
    sentAt: timestamp("sent_at"),
  },
  (t) => [
    uniqueIndex("alert_sends_subscription_key_uq").on(t.subscriptionId, t.key),
    index("alert_sends_tenant_subscription_created_idx").on(t.tenantId, t.subscriptionId, t.createdAt, t.id),
  ],
);
