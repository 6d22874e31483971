import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, timestamp, updatedAt } from "./columns";
import { locations, tenants } from "./tenancy";

export const INBOX_ITEM_TYPES = ["review", "feedback"] as const;
export const INBOX_STATUSES = ["new", "assigned", "in_progress", "responded", "resolved", "ignored"] as const;
export type InboxStatus = (typeof INBOX_STATUSES)[number];

/**
 * One work item per review or feedback submission. [reviews] creates them and the SLA sweep marks
 * escalations; the inbox routes (assign, notes, tags, status) arrive with [inbox].
 */
export const inboxItems = sqliteTable(
  "inbox_items",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id),
    type: text("type", { enum: INBOX_ITEM_TYPES }).notNull(),
    reviewId: text("review_id"),
    feedbackId: text("feedback_id"),
    locationId: text("location_id").references(() => locations.id),
    status: text("status", { enum: INBOX_STATUSES }).notNull().default("new"),
    assignedToUserId: text("assigned_to_user_id"),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default([]),
    escalatedAt: timestamp("escalated_at"),
    escalationReason: text("escalation_reason"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("inbox_items_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("inbox_items_review_idx").on(t.reviewId),
    index("inbox_items_feedback_idx").on(t.feedbackId),
    index("inbox_items_location_idx").on(t.locationId),
  ],
);
