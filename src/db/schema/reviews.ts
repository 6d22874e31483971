import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, timestamp, updatedAt } from "./columns";
import { locations, tenants } from "./tenancy";

export const SENTIMENTS = ["positive", "neutral", "negative"] as const;
export type Sentiment = (typeof SENTIMENTS)[number];

/** Review.status: `new` until a response is published here (or the site already shows an owner reply). */
export const REVIEW_STATUSES = ["new", "responded"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

export const reviews = sqliteTable(
  "reviews",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    locationId: text("location_id")
      .notNull()
      .references(() => locations.id),
    /** the solicitation that produced the review; not a foreign key until [sending] adds that table */
    solicitationId: text("solicitation_id"),
    siteType: text("site_type").notNull(),
    externalReviewId: text("external_review_id"),
    rating: real("rating"),
    ratingMax: real("rating_max"),
    text: text("text"),
    authorName: text("author_name"),
    authorExternalId: text("author_external_id"),
    language: text("language"),
    sentiment: text("sentiment", { enum: SENTIMENTS }),
    sentimentScore: real("sentiment_score"),
    topics: text("topics", { mode: "json" }).$type<string[]>().notNull().default([]),
    status: text("status", { enum: REVIEW_STATUSES }).notNull().default("new"),
    isFirstParty: integer("is_first_party", { mode: "boolean" }).notNull().default(false),
    isPublic: integer("is_public", { mode: "boolean" }).notNull().default(true),
    /** the review's page on the site, for manual replies */
    externalUrl: text("external_url"),
    /** the owner reply already on the site when the review was synced */
    externalReplyText: text("external_reply_text"),
    publishedAt: timestamp("published_at"),
    /** publishedAt when known, else createdAt: the list's sort key and the date filters' field */
    occurredAt: text("occurred_at").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("reviews_tenant_site_external_uq")
      .on(t.tenantId, t.siteType, t.externalReviewId)
      .where(sql`external_review_id is not null`),
    index("reviews_tenant_occurred_idx").on(t.tenantId, t.occurredAt, t.id),
    index("reviews_tenant_location_occurred_idx").on(t.tenantId, t.locationId, t.occurredAt, t.id),
    index("reviews_tenant_site_occurred_idx").on(t.tenantId, t.siteType, t.occurredAt, t.id),
    index("reviews_tenant_sentiment_occurred_idx").on(t.tenantId, t.sentiment, t.occurredAt, t.id),
    index("reviews_tenant_rating_idx").on(t.tenantId, t.rating),
    index("reviews_tenant_status_created_idx").on(t.tenantId, t.status, t.createdAt),
    // response rollups are keyed by arrival day per location
    index("reviews_tenant_location_created_idx").on(t.tenantId, t.locationId, t.createdAt),
    index("reviews_location_idx").on(t.locationId),
    index("reviews_solicitation_idx").on(t.solicitationId),
  ],
);

export const RESPONSE_STATUSES = ["draft", "submitted", "approved", "rejected", "published"] as const;
export type ResponseStatus = (typeof RESPONSE_STATUSES)[number];
/** A moderating site's verdict on a reply we sent (Google reviewReplyState, docs/reviews.md "Moderation"). */
export const PROVIDER_REPLY_STATES = ["pending", "active", "rejected"] as const;
export type ProviderReplyState = (typeof PROVIDER_REPLY_STATES)[number];

export const reviewResponses = sqliteTable(
  "review_responses",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id),
    text: text("text").notNull(),
    status: text("status", { enum: RESPONSE_STATUSES }).notNull().default("draft"),
    assignedToUserId: text("assigned_to_user_id"),
    rejectionReason: text("rejection_reason"),
    aiGenerated: integer("ai_generated", { mode: "boolean" }).notNull().default(false),
    createdByUserId: text("created_by_user_id"),
    decidedByUserId: text("decided_by_user_id"),
    submittedAt: timestamp("submitted_at"),
    decidedAt: timestamp("decided_at"),
    publishedAt: timestamp("published_at"),
    /** where it went: the site's connector type, or `local` for first-party reviews */
    publishedVia: text("published_via"),
    /** the user who published (API or by hand); null when an API key did */
    publishedByUserId: text("published_by_user_id"),
    /** where a reply posted by hand can be seen, when the person gave it */
    publishedUrl: text("published_url"),
    /** the moderating site's state of the reply (pending: held by Google's moderators); null where the site does not moderate */
    providerState: text("provider_state", { enum: PROVIDER_REPLY_STATES }),
    /** the policy Google says a rejected reply broke */
    providerPolicyViolation: text("provider_policy_violation"),
    /** when the site's state was last read (the moderation sweep asks again after a while) */
    providerCheckedAt: timestamp("provider_checked_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("review_responses_review_idx").on(t.reviewId, t.createdAt),
    index("review_responses_provider_state_idx").on(t.providerState, t.providerCheckedAt),
    index("review_responses_tenant_status_idx").on(t.tenantId, t.status, t.updatedAt, t.id),
    index("review_responses_assignee_idx").on(t.assignedToUserId),
  ],
);

/** Which reviews a rule covers; every given list must match (an absent list matches everything). */
/** The review sites (spec: Review.siteType, review.list); THE siteType input is z.enum of this (reviews/schemas.ts). */
export const SITE_TYPES = ["google", "yelp", "facebook", "tripadvisor", "trustpilot", "first_party"] as const;
export type SiteTypeValue = (typeof SITE_TYPES)[number];

export interface SlaFilter {
  rating?: number[];
  siteType?: SiteTypeValue[];
  sentiment?: Sentiment[];
  locationId?: string[];
}

export const slaRules = sqliteTable(
  "sla_rules",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    name: text("name").notNull(),
    filter: text("filter", { mode: "json" }).$type<SlaFilter>().notNull().default({}),
    responseWindowHours: integer("response_window_hours").notNull(),
    escalateAfterHours: integer("escalate_after_hours").notNull(),
    escalateToRole: text("escalate_to_role"),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("sla_rules_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("sla_rules_active_idx").on(t.isActive, t.tenantId),
  ],
);
