import { stdErrors } from "../../lib/openapi";
import { defineOperation } from "../../lib/operation";
import {
  AnalyticsQuery,
  FunnelQuery,
  FunnelSchema,
  ResponseAnalyticsSchema,
  ReviewAnalyticsQuery,
  ReviewAnalyticsSchema,
} from "./schemas";
import { funnelAnalytics, responseAnalytics, reviewAnalytics } from "./service";

// The analytics operations served by REST and agents alike (src/lib/operation.ts). REST keeps them to
// signed-in users (no API key scope, identity/scopes.ts); agents read them with the caller's scopes.

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
  handler: async (ctx, input) => responseAnalytics(ctx, input),
});
