import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, jsonObject, timestamp, updatedAt } from "./columns";
import { locations, tenants } from "./tenancy";

/*
 * Daily rollups. Each row is recomputed from its source rows (one tenant, location and UTC day at a
 * time) by one atomic DELETE + INSERT ... SELECT batch, so replaying an event or a rebuild always
 * lands on the same figures. Key columns use '' for "none" (campaign, template, variant) because a
 * primary key cannot hold NULL meaningfully in SQLite.
 */

/** The solicitation funnel, by the day the solicitation was created (a cohort: later clicks count on that day). */
export const analyticsFunnelDaily = sqliteTable(
  "analytics_funnel_daily",
  {
    tenantId: text("tenant_id").notNull(),
    day: text("day").notNull(),
    locationId: text("location_id").notNull(),
    channel: text("channel").notNull(),
    campaignId: text("campaign_id").notNull(),
    templateId: text("template_id").notNull(),
    variantId: text("variant_id").notNull(),
    requested: integer("requested").notNull(),
    sent: integer("sent").notNull(),
    delivered: integer("delivered").notNull(),
    clicked: integer("clicked").notNull(),
    converted: integer("converted").notNull(),
    blocked: integer("blocked").notNull(),
    /** blocked by FREQUENCY_CAP_DAILY or FREQUENCY_CAP_WEEKLY */
    blockedByCap: integer("blocked_by_cap").notNull(),
    /** FAILED or BOUNCED */
    failed: integer("failed").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.day, t.locationId, t.channel, t.campaignId, t.templateId, t.variantId] }),
    index("analytics_funnel_location_day_idx").on(t.tenantId, t.locationId, t.day),
    index("analytics_funnel_campaign_day_idx").on(t.tenantId, t.campaignId, t.day),
  ],
);

/** Reviews by the day they happened (occurredAt: the site's publish date, else arrival) and site. */
export const analyticsReviewDaily = sqliteTable(
  "analytics_review_daily",
  {
    tenantId: text("tenant_id").notNull(),
    day: text("day").notNull(),
    locationId: text("location_id").notNull(),
    siteType: text("site_type").notNull(),
    reviews: integer("reviews").notNull(),
    /** reviews with a star rating; the average is ratingSum / rated */
    rated: integer("rated").notNull(),
    ratingSum: real("rating_sum").notNull(),
    rating1: integer("rating_1").notNull(),
    rating2: integer("rating_2").notNull(),
    rating3: integer("rating_3").notNull(),
    rating4: integer("rating_4").notNull(),
    rating5: integer("rating_5").notNull(),
    positive: integer("positive").notNull(),
    neutral: integer("neutral").notNull(),
    negative: integer("negative").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.day, t.locationId, t.siteType] }),
    index("analytics_review_location_day_idx").on(t.tenantId, t.locationId, t.day),
  ],
);

/**
 * Responses, by the day the review arrived here (createdAt, as SLA windows count). Medians cannot be
 * summed, so each row keeps its reviews' first-response minutes; open SLA due times are kept so
 * "missed" is judged at read time without a sweep.
 */
export const analyticsResponseDaily = sqliteTable(
  "analytics_response_daily",
  {
    tenantId: text("tenant_id").notNull(),
    day: text("day").notNull(),
    locationId: text("location_id").notNull(),
    reviews: integer("reviews").notNull(),
    responded: integer("responded").notNull(),
    /** minutes from arrival to the first response published here, one per such review */
    responseMinutes: text("response_minutes", { mode: "json" }).$type<number[]>().notNull(),
    slaCovered: integer("sla_covered").notNull(),
    slaMet: integer("sla_met").notNull(),
    /** answered after the due time */
    slaMissed: integer("sla_missed").notNull(),
    /** due times of covered reviews still unanswered (missed once past, pending before) */
    slaOpenDue: text("sla_open_due", { mode: "json" }).$type<string[]>().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.day, t.locationId] }),
    index("analytics_response_location_day_idx").on(t.tenantId, t.locationId, t.day),
  ],
);

/** One reputation score snapshot per location and UTC day (recomputing a day replaces it). */
export const reputationScores = sqliteTable(
  "reputation_scores",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    locationId: text("location_id")
      .notNull()
      .references(() => locations.id),
    day: text("day").notNull(),
    score: integer("score").notNull(),
    rating: real("rating").notNull(),
    velocity: real("velocity").notNull(),
    sentiment: real("sentiment").notNull(),
    responseHealth: real("response_health").notNull(),
    platformDiversity: real("platform_diversity").notNull(),
    /** the raw figures the components came from */
    inputs: jsonObject("inputs"),
    computedAt: text("computed_at").notNull(),
  },
  (t) => [
    uniqueIndex("reputation_scores_location_day_uq").on(t.tenantId, t.locationId, t.day),
    index("reputation_scores_location_idx").on(t.locationId, t.day),
  ],
);

export interface CompetitorSiteSummary {
  rating: number | null;
  reviewCount: number | null;
  fetchedAt: string;
}

export const COMPETITOR_REFRESH_STATUSES = ["ok", "partial", "error", "no_connection", "no_site_ids"] as const;

/** A business tracked against one of the tenant's locations, with its review-site ids. */
export const competitors = sqliteTable(
  "competitors",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    locationId: text("location_id")
      .notNull()
      .references(() => locations.id),
    name: text("name").notNull(),
    websiteUrl: text("website_url"),
    googlePlaceId: text("google_place_id"),
    yelpBusinessId: text("yelp_business_id"),
    facebookPageId: text("facebook_page_id"),
    tripadvisorId: text("tripadvisor_id"),
    trustpilotBusinessUnitId: text("trustpilot_business_unit_id"),
    /** review-count-weighted over the sites that reported one */
    averageRating: real("average_rating"),
    reviewCount: integer("review_count"),
    bySite: text("by_site", { mode: "json" }).$type<Record<string, CompetitorSiteSummary>>().notNull().default({}),
    lastRefreshedAt: timestamp("last_refreshed_at"),
    lastRefreshStatus: text("last_refresh_status", { enum: COMPETITOR_REFRESH_STATUSES }),
    lastRefreshError: text("last_refresh_error"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("competitors_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("competitors_location_idx").on(t.locationId),
    index("competitors_refresh_idx").on(t.lastRefreshedAt),
  ],
);

export const RECOMMENDATION_STATUSES = ["pending", "accepted", "rejected", "snoozed", "applied"] as const;
export type RecommendationStatus = (typeof RECOMMENDATION_STATUSES)[number];
export const RECOMMENDATION_PRIORITIES = ["low", "medium", "high", "critical"] as const;
export const RISK_LEVELS = ["low", "medium", "high"] as const;

export const recommendations = sqliteTable(
  "recommendations",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    scopeType: text("scope_type").notNull(),
    scopeId: text("scope_id").notNull(),
    type: text("type").notNull(),
    title: text("title").notNull(),
    description: text("description").notNull(),
    priority: text("priority", { enum: RECOMMENDATION_PRIORITIES }).notNull(),
    status: text("status", { enum: RECOMMENDATION_STATUSES }).notNull().default("pending"),
    confidence: real("confidence").notNull(),
    riskLevel: text("risk_level", { enum: RISK_LEVELS }).notNull(),
    actionPayload: jsonObject("action_payload"),
    /** the figures that triggered it */
    evidence: jsonObject("evidence"),
    /** type:scopeType:scopeId; at most one open (pending, snoozed, accepted) recommendation per key */
    dedupeKey: text("dedupe_key").notNull(),
    snoozedUntil: timestamp("snoozed_until"),
    decidedByUserId: text("decided_by_user_id"),
    decidedAt: timestamp("decided_at"),
    appliedAt: timestamp("applied_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("recommendations_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    uniqueIndex("recommendations_open_uq")
      .on(t.tenantId, t.dedupeKey)
      .where(sql`status in ('pending', 'snoozed', 'accepted')`),
    index("recommendations_key_idx").on(t.tenantId, t.dedupeKey, t.updatedAt),
    index("recommendations_snoozed_idx").on(t.status, t.snoozedUntil),
  ],
);

/** The last day the recommendation rules ran for a tenant: the sweep works through tenants not yet done today. */
export const recommendationRuns = sqliteTable(
  "recommendation_runs",
  {
    tenantId: text("tenant_id").primaryKey(),
    lastRunDay: text("last_run_day").notNull(),
    lastRunAt: text("last_run_at").notNull(),
  },
  (t) => [index("recommendation_runs_day_idx").on(t.lastRunDay)],
);

/**
 * The rollup cells (one rollup, tenant, location and UTC day) that events touched, and up to which
 * touch each was last rebuilt: a cell is dirty while version > built_version. Lets a hot cell be
 * rebuilt at most once per ROLLUP_REBUILD_SECONDS however many event batches touch it.
 */
export const rollupCells = sqliteTable(
  "rollup_cells",
  {
    rollup: text("rollup").notNull(),
    tenantId: text("tenant_id").notNull(),
    locationId: text("location_id").notNull(),
    day: text("day").notNull(),
    version: integer("version").notNull(),
    builtVersion: integer("built_version").notNull(),
    builtAt: text("built_at"),
  },
  (t) => [
    primaryKey({ columns: [t.rollup, t.tenantId, t.locationId, t.day] }),
    index("rollup_cells_dirty_idx").on(t.builtAt).where(sql.raw("version > built_version")),
    index("rollup_cells_day_idx").on(t.day),
  ],
);
