import { createRoute } from "@hono/zod-openapi";
import { createRouter, json, jsonBody, stdErrors, stdErrorsWithNotFound, TENANT_SECURITY, USER_SECURITY } from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canAdminister } from "../../middleware/tenant";
import { agencyScopeOf } from "../tenants/scope";
import { agencyAnalytics } from "./agency";
import {
  AgencyAnalyticsQuery, AgencyAnalyticsSchema, AnalyticsQuery, FunnelQuery, FunnelSchema, OverviewSchema, RebuildBody, RebuildResultSchema,
  ResponseAnalyticsSchema, ReviewAnalyticsQuery, ReviewAnalyticsSchema,
} from "./schemas";
import { funnelAnalytics, overview, rebuildAnalytics, responseAnalytics, reviewAnalytics } from "./service";

const tags = ["Analytics"];
const fromRollups = "Computed from the daily rollups (UTC days). Default range: the 30 days ending today.";

const overviewRoute = createRoute({
  method: "get", path: "/v1/analytics/overview", tags, security: TENANT_SECURITY, summary: "Reviews, funnel and response figures for a range",
  operationId: "getAnalyticsOverview",
  description: fromRollups,
  request: { query: AnalyticsQuery },
  responses: { 200: json(OverviewSchema), ...stdErrors },
});

const funnelRoute = createRoute({
  method: "get", path: "/v1/analytics/funnel", tags, security: TENANT_SECURITY, summary: "Solicitation funnel per channel, template, campaign and variant",
  operationId: "getAnalyticsFunnel",
  description: `${fromRollups} Solicitations count on the day they were created (cohorts): a click days later adds to that day. Rates are over sent.`,
  request: { query: FunnelQuery },
  responses: { 200: json(FunnelSchema), ...stdErrors },
});

const reviewsRoute = createRoute({
  method: "get", path: "/v1/analytics/reviews", tags, security: TENANT_SECURITY, summary: "Review volume, average rating, distribution and sentiment",
  operationId: "getReviewAnalytics",
  description: `${fromRollups} Reviews count on their occurredAt day (the site's publish date, else arrival).`,
  request: { query: ReviewAnalyticsQuery },
  responses: { 200: json(ReviewAnalyticsSchema), ...stdErrors },
});

const responsesRoute = createRoute({
  method: "get", path: "/v1/analytics/responses", tags, security: TENANT_SECURITY, summary: "Response rate, median time to first response, SLA compliance",
  operationId: "getResponseAnalytics",
  description: `${fromRollups} Reviews count on the day they arrived here (as SLA windows do).`,
  request: { query: AnalyticsQuery },
  responses: { 200: json(ResponseAnalyticsSchema), ...stdErrors },
});

const rebuildRoute = createRoute({
  method: "post", path: "/v1/analytics/rebuild", tags, security: TENANT_SECURITY, summary: "Recompute the rollups of a range from source rows (tenant_admin)",
  operationId: "rebuildAnalytics",
  description: "Backfill or repair: every rollup row of the tenant in the range (at most 366 days) is recomputed from solicitations, reviews and responses. Audited.",
  middleware: [canAdminister] as const,
  request: { body: jsonBody(RebuildBody) },
  responses: { 200: json(RebuildResultSchema), ...stdErrors },
});

const agencyRoute = createRoute({
  method: "get", path: "/agency/analytics", tags: ["Agency"], security: USER_SECURITY, summary: "Rollups across the tenants the caller's agencies own",
  operationId: "getAgencyAnalytics",
  description: "Per tenant and in total. tenantId narrows to one owned tenant; another agency's tenant is 404.",
  request: { query: AgencyAnalyticsQuery },
  responses: { 200: json(AgencyAnalyticsSchema), ...stdErrorsWithNotFound },
});

export const analyticsRoutes = createRouter()
  .openapi(overviewRoute, async (c) => c.json(await overview(svc(c), c.req.valid("query")), 200))
  .openapi(funnelRoute, async (c) => c.json(await funnelAnalytics(svc(c), c.req.valid("query")), 200))
  .openapi(reviewsRoute, async (c) => c.json(await reviewAnalytics(svc(c), c.req.valid("query")), 200))
  .openapi(responsesRoute, async (c) => c.json(await responseAnalytics(svc(c), c.req.valid("query")), 200))
  .openapi(rebuildRoute, async (c) => c.json(await rebuildAnalytics(svc(c), c.req.valid("json")), 200))
  .openapi(agencyRoute, async (c) => c.json(await agencyAnalytics(c.env, agencyScopeOf(c.var.principal), c.req.valid("query")), 200));
