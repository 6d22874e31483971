import { index, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, timestamp, updatedAt } from "./columns";
import { MESSAGE_CHANNELS } from "./outbox";
import { SENTIMENTS, SITE_TYPES } from "./reviews";
import { locations, tenants } from "./tenancy";

export const INBOX_ITEM_TYPES = ["review", "feedback"] as const;
export const INBOX_STATUSES = ["new", "assigned", "in_progress", "responded", "resolved", "ignored"] as const;
export type InboxStatus = (typeof INBOX_STATUSES)[number];
/**
 * Where the customer spoke: a review's site, or the channel of the review request whose feedback page
 * a feedback item came from (every feedback submission answers one solicitation).
 */
export const INBOX_CHANNELS = [...SITE_TYPES, ...MESSAGE_CHANNELS] as const;
export type InboxChannel = (typeof INBOX_CHANNELS)[number];

/**
 * One work item per review or feedback submission. Review ingest and feedback submission create
 * them; rating, excerpt and sentiment are copied from the source at insert (and on its updates) so
 * the one list over both kinds needs no join.
 */
export const inboxItems = sqliteTable(
  "inbox_items",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    type: text("type", { enum: INBOX_ITEM_TYPES }).notNull(),
    reviewId: text("review_id"),
    feedbackId: text("feedback_id"),
    locationId: text("location_id").references(() => locations.id),
    status: text("status", { enum: INBOX_STATUSES }).notNull().default("new"),
    assignedToUserId: text("assigned_to_user_id"),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default([]),
    escalatedAt: timestamp("escalated_at"),
    escalationReason: text("escalation_reason"),
    /** the user or API key that escalated by hand; null for the SLA sweep and public callback requests */
    escalatedBy: text("escalated_by"),
    /** the review's site, or the channel of the request a feedback item answered (INBOX_CHANNELS) */
    channel: text("channel", { enum: INBOX_CHANNELS }),
    rating: real("rating"),
    excerpt: text("excerpt"),
    sentiment: text("sentiment", { enum: SENTIMENTS }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("inbox_items_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("inbox_items_review_idx").on(t.reviewId),
    index("inbox_items_feedback_idx").on(t.feedbackId),
    index("inbox_items_location_idx").on(t.locationId),
    index("inbox_items_tenant_status_created_idx").on(t.tenantId, t.status, t.createdAt, t.id),
    index("inbox_items_tenant_type_created_idx").on(t.tenantId, t.type, t.createdAt, t.id),
    index("inbox_items_tenant_location_created_idx").on(t.tenantId, t.locationId, t.createdAt, t.id),
    index("inbox_items_tenant_assignee_created_idx").on(t.tenantId, t.assignedToUserId, t.createdAt, t.id),
    index("inbox_items_tenant_channel_created_idx").on(t.tenantId, t.channel, t.createdAt, t.id),
    // an exact rating (ratingMin = ratingMax, the console's "1 star"): no sort
    index("inbox_items_tenant_rating_created_idx").on(t.tenantId, t.rating, t.createdAt, t.id),
  ],
);

/** Internal notes on an inbox item, oldest first. */
export const inboxNotes = sqliteTable(
  "inbox_notes",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    inboxItemId: text("inbox_item_id")
      .notNull()
      .references(() => inboxItems.id),
    /** the user (or API key) that wrote it */
    authorId: text("author_id"),
    authorType: text("author_type", { enum: ["user", "api_key", "system"] }).notNull(),
    note: text("note").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("inbox_notes_item_created_idx").on(t.inboxItemId, t.createdAt, t.id),
    index("inbox_notes_tenant_idx").on(t.tenantId),
  ],
);
