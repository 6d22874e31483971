import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, timestamp, updatedAt } from "./columns";
import { reviewResponses, reviews } from "./reviews";
import { locations, tenants } from "./tenancy";

/** Which review texts a rule answers: any, only reviews without text (star-only), or only reviews with text. */
export const AUTO_REPLY_TEXT_CONDITIONS = ["any", "empty", "present"] as const;
export type AutoReplyTextCondition = (typeof AUTO_REPLY_TEXT_CONDITIONS)[number];

/** Where the reply text comes from: the rule's template ({{tokens}}) or the drafting engine. */
export const AUTO_REPLY_SOURCES = ["template", "engine"] as const;
export type AutoReplySource = (typeof AUTO_REPLY_SOURCES)[number];

/** approval: the draft waits in the approval queue; auto_publish: published after delayMinutes unless a person intervenes. */
export const AUTO_REPLY_MODES = ["approval", "auto_publish"] as const;
export type AutoReplyMode = (typeof AUTO_REPLY_MODES)[number];

export const AUTO_REPLY_STATUSES = [
  "drafting",
  "queued",
  "scheduled",
  "publishing",
  "published",
  "cancelled",
  "failed",
] as const;
export type AutoReplyStatus = (typeof AUTO_REPLY_STATUSES)[number];

/** The tenant's opt-in to publishing without a person's approval; absent row = not opted in. */
export const autoReplySettings = sqliteTable("auto_reply_settings", {
  tenantId: text("tenant_id")
    .primaryKey()
    .references(() => tenants.id),
  autoPublishEnabled: integer("auto_publish_enabled", { mode: "boolean" }).notNull().default(false),
  updatedAt: updatedAt(),
});

export const autoReplyRules = sqliteTable(
  "auto_reply_rules",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    name: text("name").notNull(),
    /** null: every location */
    locationId: text("location_id").references(() => locations.id),
    /** null: every review site */
    siteType: text("site_type"),
    ratings: text("ratings", { mode: "json" }).$type<number[]>().notNull(),
    /** ratings of 3 or less are answered only when the rule says so explicitly */
    allowLowRatings: integer("allow_low_ratings", { mode: "boolean" }).notNull().default(false),
    textCondition: text("text_condition", { enum: AUTO_REPLY_TEXT_CONDITIONS }).notNull().default("any"),
    /** any one of them in the text (case-insensitive); empty = no keyword condition */
    keywords: text("keywords", { mode: "json" }).$type<string[]>().notNull().default([]),
    source: text("source", { enum: AUTO_REPLY_SOURCES }).notNull(),
    template: text("template"),
    mode: text("mode", { enum: AUTO_REPLY_MODES }).notNull().default("approval"),
    delayMinutes: integer("delay_minutes"),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("auto_reply_rules_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("auto_reply_rules_tenant_active_idx").on(t.tenantId, t.isActive),
    index("auto_reply_rules_location_idx").on(t.locationId),
  ],
);

/** One automatic reply per review, ever: the unique review id makes event redelivery harmless. */
export const autoReplies = sqliteTable(
  "auto_replies",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    ruleId: text("rule_id").notNull(),
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id),
    responseId: text("response_id").references(() => reviewResponses.id),
    mode: text("mode", { enum: AUTO_REPLY_MODES }).notNull(),
    status: text("status", { enum: AUTO_REPLY_STATUSES }).notNull(),
    publishAt: timestamp("publish_at"),
    attempts: integer("attempts").notNull().default(0),
    /** why it was cancelled: the person's action (reject, edit, publish, cancel) */
    cancelReason: text("cancel_reason"),
    lastError: text("last_error"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("auto_replies_tenant_review_uq").on(t.tenantId, t.reviewId),
    index("auto_replies_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("auto_replies_due_idx").on(t.status, t.publishAt),
    index("auto_replies_response_idx").on(t.responseId),
    index("auto_replies_rule_idx").on(t.ruleId),
  ],
);
