import { z } from "@hono/zod-openapi";
import { MESSAGE_CHANNELS } from "../../db/schema";
import { DateTime, PageQuerySchema, paged } from "../../lib/openapi";
import { SiteType } from "../reviews/schemas";
import { daysBetween } from "./dates";

/** Longest range a read route accepts (two years of daily rows). */
export const MAX_RANGE_DAYS = 731;
/** Longest range one rebuild call recomputes. */
export const MAX_REBUILD_DAYS = 366;

const Day = z.iso.date();

const rangeOk = (max: number) => (q: { dateFrom?: string; dateTo?: string }) =>
  !q.dateFrom || !q.dateTo || (q.dateFrom <= q.dateTo && daysBetween(q.dateFrom, q.dateTo) <= max);
const rangeIssue = (max: number) => ({
  message: `dateFrom must not be after dateTo, and the range at most ${max} days`,
  path: ["dateFrom"],
});

const filterFields = {
  dateFrom: Day.optional().openapi({ description: "inclusive UTC day; default 29 days before dateTo" }),
  dateTo: Day.optional().openapi({ description: "inclusive UTC day; default today" }),
  locationId: z.string().min(1).optional().openapi({ description: "only this location (400 when not this tenant's)" }),
  brandId: z
    .string()
    .min(1)
    .optional()
    .openapi({ description: "only this brand's locations (400 when not this tenant's)" }),
};

export const AnalyticsQuery = z.object(filterFields).refine(rangeOk(MAX_RANGE_DAYS), rangeIssue(MAX_RANGE_DAYS));
export type AnalyticsFilter = z.infer<typeof AnalyticsQuery>;

export const FunnelQuery = z
  .object({
    ...filterFields,
    campaignId: z.string().min(1).optional(),
    channel: z.enum(MESSAGE_CHANNELS).optional(),
  })
  .refine(rangeOk(MAX_RANGE_DAYS), rangeIssue(MAX_RANGE_DAYS));
export type FunnelFilter = z.infer<typeof FunnelQuery>;

export const INTERVALS = ["day", "week", "month"] as const;
export type Interval = (typeof INTERVALS)[number];

export const ReviewAnalyticsQuery = z
  .object({
    ...filterFields,
    siteType: SiteType.optional(),
    interval: z.enum(INTERVALS).default("day").openapi({
      description: "series buckets: day, week (starting Monday, labelled by that Monday) or month (YYYY-MM)",
    }),
  })
  .refine(rangeOk(MAX_RANGE_DAYS), rangeIssue(MAX_RANGE_DAYS));
export type ReviewAnalyticsFilter = z.infer<typeof ReviewAnalyticsQuery>;

export const RebuildBody = z
  .object({ dateFrom: Day, dateTo: Day })
  .refine(rangeOk(MAX_REBUILD_DAYS), rangeIssue(MAX_REBUILD_DAYS))
  .openapi("AnalyticsRebuildRequest");

export const AgencyAnalyticsQuery = z
  .object({
    dateFrom: filterFields.dateFrom,
    dateTo: filterFields.dateTo,
    tenantId: z.string().min(1).optional().openapi({ description: "one owned tenant (404 when not owned)" }),
  })
  .refine(rangeOk(MAX_RANGE_DAYS), rangeIssue(MAX_RANGE_DAYS));

const Rate = z.number().nullable().openapi({ description: "0..1; null when the denominator is 0" });

const Range = z.object({ dateFrom: Day, dateTo: Day }).openapi("AnalyticsRange");

export const FunnelCountsSchema = z
  .object({
    requested: z.number().int().openapi({ description: "solicitations created (every status)" }),
    sent: z.number().int().openapi({ description: "handed to a provider" }),
    delivered: z.number().int().openapi({ description: "delivery receipts" }),
    clicked: z.number().int(),
    converted: z.number().int().openapi({ description: "a review arrived for the solicitation" }),
    blocked: z.number().int(),
    blockedByCap: z.number().int().openapi({ description: "blocked by the daily or weekly frequency cap" }),
    failed: z.number().int().openapi({ description: "FAILED or BOUNCED" }),
    deliveryRate: Rate,
    clickRate: Rate,
    conversionRate: Rate,
  })
  .openapi("FunnelCounts");
export type FunnelCounts = z.infer<typeof FunnelCountsSchema>;

export const FunnelSchema = z
  .object({
    range: Range,
    totals: FunnelCountsSchema,
    byChannel: z.array(FunnelCountsSchema.extend({ channel: z.string() })),
    byTemplate: z.array(FunnelCountsSchema.extend({ templateId: z.string().nullable() })),
    byCampaign: z.array(FunnelCountsSchema.extend({ campaignId: z.string().nullable() })),
    byVariant: z.array(FunnelCountsSchema.extend({ campaignId: z.string().nullable(), variantId: z.string() })),
  })
  .openapi("FunnelAnalytics");

const Distribution = z
  .object({
    "1": z.number().int(),
    "2": z.number().int(),
    "3": z.number().int(),
    "4": z.number().int(),
    "5": z.number().int(),
  })
  .openapi("RatingDistribution", { description: "reviews per star rating (rounded to the nearest star)" });
const Sentiments = z
  .object({ positive: z.number().int(), neutral: z.number().int(), negative: z.number().int() })
  .openapi("SentimentCounts");

export const ReviewStatsSchema = z
  .object({
    count: z.number().int(),
    averageRating: z.number().nullable(),
    distribution: Distribution,
    sentiment: Sentiments,
  })
  .openapi("ReviewStats");
export type ReviewStats = z.infer<typeof ReviewStatsSchema>;

export const ReviewAnalyticsSchema = z
  .object({
    range: Range,
    interval: z.enum(INTERVALS),
    totals: ReviewStatsSchema,
    series: z.array(ReviewStatsSchema.extend({ period: z.string() })),
    byLocation: z.array(ReviewStatsSchema.extend({ locationId: z.string() })),
    bySite: z.array(ReviewStatsSchema.extend({ siteType: z.string() })),
  })
  .openapi("ReviewAnalytics");

export const ResponseStatsSchema = z
  .object({
    reviews: z.number().int().openapi({ description: "reviews that arrived in the range" }),
    responded: z.number().int(),
    responseRate: Rate,
    medianFirstResponseMinutes: z
      .number()
      .nullable()
      .openapi({ description: "arrival to the first response published here" }),
    sla: z.object({
      covered: z.number().int().openapi({ description: "reviews an active SLA rule covers" }),
      met: z.number().int(),
      missed: z.number().int().openapi({ description: "answered late, or still unanswered past the due time" }),
      pending: z.number().int().openapi({ description: "unanswered, not yet due" }),
      complianceRate: Rate.openapi({ description: "met / (met + missed)" }),
    }),
  })
  .openapi("ResponseStats");
export type ResponseStats = z.infer<typeof ResponseStatsSchema>;

export const ResponseAnalyticsSchema = z
  .object({
    range: Range,
    totals: ResponseStatsSchema,
    byLocation: z.array(ResponseStatsSchema.extend({ locationId: z.string() })),
  })
  .openapi("ResponseAnalytics");

export const OverviewSchema = z
  .object({ range: Range, reviews: ReviewStatsSchema, funnel: FunnelCountsSchema, responses: ResponseStatsSchema })
  .openapi("AnalyticsOverview");

export const RebuildResultSchema = z
  .object({
    range: Range,
    funnelRows: z.number().int(),
    reviewRows: z.number().int(),
    responseRows: z.number().int(),
    rebuiltAt: DateTime,
  })
  .openapi("AnalyticsRebuildResult");

const TenantRef = z.object({ id: z.string(), name: z.string(), slug: z.string() });
const AgencyFigures = z.object({
  reviews: z.object({ count: z.number().int(), averageRating: z.number().nullable(), negative: z.number().int() }),
  funnel: z.object({
    requested: z.number().int(),
    sent: z.number().int(),
    delivered: z.number().int(),
    clicked: z.number().int(),
    converted: z.number().int(),
    conversionRate: Rate,
  }),
  responses: z.object({ reviews: z.number().int(), responded: z.number().int(), responseRate: Rate }),
});
export const AgencyAnalyticsSchema = z
  .object({ range: Range, totals: AgencyFigures, tenants: z.array(AgencyFigures.extend({ tenant: TenantRef })) })
  .openapi("AgencyAnalytics");
export type AgencyFiguresDto = z.infer<typeof AgencyFigures>;

// ---- agency usage (GET /agency/usage)

export const AgencyUsageQuery = PageQuerySchema.extend({
  tenantId: z.string().min(1).max(64).optional().openapi({ description: "one owned tenant (404 when not owned)" }),
  isActive: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional()
    .openapi({ description: "only active (true) or paused (false) tenants" }),
});

export const AgencyTenantUsageSchema = z
  .object({
    tenant: TenantRef.extend({ plan: z.string(), isActive: z.boolean() }),
    locations: z.number().int().openapi({ description: "active locations" }),
    contacts: z.number().int(),
    messagesSentThisMonth: z.number().int().openapi({
      description: "review requests handed to a provider, of those created this calendar month (UTC)",
    }),
    reviews: z.number().int().openapi({ description: "reviews on record, all time" }),
    reviewsThisMonth: z.number().int().openapi({ description: "reviews that happened this calendar month (UTC)" }),
    averageRating: z.number().nullable().openapi({ description: "all time, 1..5; null without rated reviews" }),
    responseRate: Rate.openapi({
      description: "share of the reviews that arrived in the last 30 days (responseRange) that have a response",
    }),
    overdueInboxItems: z.number().int().openapi({
      description: "reviews still unanswered past their SLA response window (the inbox's pastSla items)",
    }),
  })
  .openapi("AgencyTenantUsage");

export const AgencyUsagePageSchema = paged(AgencyTenantUsageSchema)
  .extend({
    month: z.string().openapi({ description: "the calendar month counted (UTC), YYYY-MM", example: "2026-05" }),
    responseRange: Range,
    asOf: DateTime.openapi({ description: "when the figures were read (rollups trail events by seconds)" }),
  })
  .openapi("AgencyUsagePage");
