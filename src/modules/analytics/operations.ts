import { z } from "@hono/zod-openapi";
import { dayRangeInput, rangeOf } from "../../lib/day-range";
import { stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { SiteType } from "../reviews/schemas";
import { agencyAnalytics } from "./agency";
import { agencyUsage } from "./agency-usage";
import {
  AgencyAnalyticsQuery,
  AgencyAnalyticsSchema,
  AgencyUsagePageSchema,
  AgencyUsageQuery,
  AnalyticsQuery,
  FunnelCountsSchema,
  FunnelQuery,
  FunnelSchema,
  OverviewSchema,
  RebuildBody,
  RebuildResultSchema,
  ResponseAnalyticsSchema,
  ReviewAnalyticsQuery,
  ReviewAnalyticsSchema,
  ReviewStatsSchema,
} from "./schemas";
import { sendTiming, WEEKDAYS } from "./send-timing";
import { funnelAnalytics, overview, rebuildAnalytics, responseAnalytics, reviewAnalytics } from "./service";
import { campaignMetrics, reviewSummary } from "./skills";

// The analytics operations served by REST and agents alike (src/lib/operation.ts). REST keeps them to
// signed-in users (no API key scope, identity/scopes.ts); agents read them with the caller's scopes.
// An agency reads its tenants' rollups under /agency (an agency admin or a platform admin).

const tags = ["Analytics"];
const fromRollups = "Computed from the daily rollups (UTC days). Default range: the 30 days ending today.";

export const funnelAnalyticsOperation = defineOperation({
  name: "analytics.funnel",
  operationId: "getAnalyticsFunnel",
  method: "get",
  path: "/v1/analytics/funnel",
  tags,
  summary: "Solicitation funnel per channel, template, campaign and variant",
  description: `${fromRollups} Solicitations count on the day they were created (cohorts): a click days later adds to that day. Rates are over sent.`,
  request: { query: FunnelQuery },
  output: FunnelSchema,
  errors: stdErrors,
  scopes: [],
  access: "read",
  agent: { scopes: ["read:campaigns"] },
  console: {},
  handler: async (ctx, input) => funnelAnalytics(ctx, input),
});

export const reviewAnalyticsOperation = defineOperation({
  name: "analytics.reviews",
  operationId: "getReviewAnalytics",
  method: "get",
  path: "/v1/analytics/reviews",
  tags,
  summary: "Review volume, average rating, distribution and sentiment",
  description: `${fromRollups} Reviews count on their occurredAt day (the site's publish date, else arrival).`,
  request: { query: ReviewAnalyticsQuery },
  output: ReviewAnalyticsSchema,
  errors: stdErrors,
  scopes: [],
  access: "read",
  agent: { scopes: ["read:reviews"], defaults: { interval: "week" } },
  console: {},
  handler: async (ctx, input) => reviewAnalytics(ctx, input),
});

export const responseAnalyticsOperation = defineOperation({
  name: "analytics.responses",
  operationId: "getResponseAnalytics",
  method: "get",
  path: "/v1/analytics/responses",
  tags,
  summary: "Response rate, median time to first response, SLA compliance",
  description: `${fromRollups} Reviews count on the day they arrived here (as SLA windows do).`,
  request: { query: AnalyticsQuery },
  output: ResponseAnalyticsSchema,
  errors: stdErrors,
  scopes: [],
  access: "read",
  agent: { scopes: ["read:reviews"] },
  console: {},
  handler: async (ctx, input) => responseAnalytics(ctx, input),
});

export const analyticsOverviewOperation = defineOperation({
  name: "analytics.overview",
  operationId: "getAnalyticsOverview",
  method: "get",
  path: "/v1/analytics/overview",
  tags,
  summary: "Reviews, funnel and response figures for a range",
  description: fromRollups,
  request: { query: AnalyticsQuery },
  output: OverviewSchema,
  errors: stdErrors,
  scopes: [],
  access: "read",
  handler: async (ctx, input) => overview(ctx, input),
});

export const rebuildAnalyticsOperation = defineOperation({
  name: "analytics.rebuild",
  operationId: "rebuildAnalytics",
  method: "post",
  path: "/v1/analytics/rebuild",
  tags,
  summary: "Recompute the rollups of a range from source rows (tenant_admin)",
  description:
    "Backfill or repair: every rollup row of the tenant in the range (at most 366 days) is recomputed from solicitations, reviews and responses. Audited.",
  request: { body: RebuildBody },
  output: RebuildResultSchema,
  errors: stdErrors,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  idempotent: true,
  handler: async (ctx, input) => rebuildAnalytics(ctx, input),
});

export const agencyUsageOperation = defineOperation({
  name: "agency.usage",
  context: "agency",
  operationId: "getAgencyUsage",
  method: "get",
  path: "/agency/usage",
  tags: ["Agency"],
  summary: "Usage and health of each tenant the caller's agencies own, newest tenant first",
  description:
    "A keyset page of the owned tenants (like GET /agency/tenants), each with its active locations, contacts, review " +
    "requests sent this calendar month (UTC), reviews (all time and this month), average rating, response rate over the " +
    "last 30 days and reviews past their SLA. Read from the daily rollups and counters, one batch per shard. tenantId " +
    "narrows to one owned tenant; another agency's tenant is 404.",
  request: { query: AgencyUsageQuery },
  output: AgencyUsagePageSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => agencyUsage(ctx.env, ctx.agencies, input),
});

export const agencyAnalyticsOperation = defineOperation({
  name: "agency.analytics",
  context: "agency",
  operationId: "getAgencyAnalytics",
  method: "get",
  path: "/agency/analytics",
  tags: ["Agency"],
  summary: "Rollups across the tenants the caller's agencies own",
  description: "Per tenant and in total. tenantId narrows to one owned tenant; another agency's tenant is 404.",
  request: { query: AgencyAnalyticsQuery },
  output: AgencyAnalyticsSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  handler: async (ctx, input) => agencyAnalytics(ctx.env, ctx.agencies, input),
});

// The rollups read as one summary (MCP tools): what a model asks in one call.

export const reviewSummaryOperation = defineOperation({
  name: "review.summary",
  summary: "Review summary",
  description: "Average rating, review count and the distribution by stars and by review site.",
  input: z.object({
    locationId: z.string().max(64).optional(),
    siteType: SiteType.optional(),
    since: z.iso.datetime({ offset: true }).optional(),
  }),
  output: ReviewStatsSchema.extend({
    since: z.string().nullable(),
    bySite: z.array(ReviewStatsSchema.omit({ sentiment: true }).extend({ siteType: z.string() })),
  }),
  scopes: ["read:reviews"],
  access: "read",
  variantOf: {
    operationId: "getReviewAnalytics",
    why: "one summary (average, distribution by rating and site) where GET /v1/analytics/reviews answers a series from rollups",
  },
  mcp: { title: "Review summary" },
  handler: async (ctx, input) => reviewSummary(ctx, input),
});

// campaign.metrics adds the spec's step names: opens are not tracked, responded = converted
const Steps = FunnelCountsSchema.extend({ opened: z.null(), responded: z.number().int() });

export const campaignMetricsOperation = defineOperation({
  name: "campaign.metrics",
  summary: "Campaign funnel",
  description:
    "A campaign's review-request funnel by channel and template: sent, delivered, clicked, converted (a review or " +
    "feedback came back) and rates; opens are not tracked (null). outcomeUnknown: sends with no known outcome, counted in sent.",
  input: z.object({
    campaignId: z.string().min(1).max(64),
    since: z.iso.datetime({ offset: true }).optional(),
  }),
  output: z.object({
    campaignId: z.string(),
    name: z.string(),
    since: z.string().nullable(),
    totals: Steps.extend({
      // sends whose outcome is unknown (the runtime died while the provider answered; counted in sent): docs/sending.md
      outcomeUnknown: z.number().int(),
    }),
    byChannel: z.array(Steps.extend({ channel: z.string() })),
    byTemplate: z.array(Steps.extend({ channel: z.string(), templateId: z.string().nullable() })),
  }),
  scopes: ["read:campaigns"],
  access: "read",
  mcp: { title: "Campaign funnel" },
  handler: async (ctx, input) => campaignMetrics(ctx, input),
});

const Bucket = { sent: z.number().int(), converted: z.number().int() };

export const sendTimingOperation = defineOperation({
  name: "analytics.send-timing",
  summary:
    "Conversion of sent review requests by local hour of day and weekday of sending, and the days from send to conversion.",
  input: z.object({
    ...dayRangeInput,
    locationId: z.string().min(1).max(64).optional(),
    brandId: z.string().min(1).max(64).optional(),
    campaignId: z.string().min(1).max(64).optional(),
  }),
  output: z.object({
    range: z.object({ from: z.string(), to: z.string() }),
    sends: z.number().int(),
    truncated: z.boolean(),
    byHour: z.array(z.object({ hour: z.number().int(), ...Bucket })),
    byWeekday: z.array(z.object({ weekday: z.enum(WEEKDAYS), ...Bucket })),
    daysToConvert: z.object({ count: z.number().int(), median: z.number().nullable(), p75: z.number().nullable() }),
  }),
  scopes: ["read:campaigns"],
  access: "read",
  // computed for the campaign strategist only: no REST route
  agent: { scopes: ["read:campaigns"] },
  handler: (ctx, i) =>
    sendTiming(ctx, { range: rangeOf(i), locationId: i.locationId, brandId: i.brandId, campaignId: i.campaignId }),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  analyticsOverviewOperation,
  rebuildAnalyticsOperation,
  agencyUsageOperation,
  agencyAnalyticsOperation,
  funnelAnalyticsOperation,
  reviewAnalyticsOperation,
  responseAnalyticsOperation,
  reviewSummaryOperation,
  campaignMetricsOperation,
  sendTimingOperation,
];
