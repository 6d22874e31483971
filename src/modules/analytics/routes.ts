import { createRoute } from "@hono/zod-openapi";
import {
  createRouter,
  json,
  jsonBody,
  type Router,
  stdErrors,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
  USER_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canAdminister } from "../../middleware/tenant";
import { agencyScopeOf } from "../tenants/scope";
import { agencyAnalytics } from "./agency";
import { agencyUsage } from "./agency-usage";
import {
  AgencyAnalyticsQuery,
  AgencyAnalyticsSchema,
  AgencyUsagePageSchema,
  AgencyUsageQuery,
  AnalyticsQuery,
  OverviewSchema,
  RebuildBody,
  RebuildResultSchema,
} from "./schemas";
import { overview, rebuildAnalytics } from "./service";

const tags = ["Analytics"];
const fromRollups = "Computed from the daily rollups (UTC days). Default range: the 30 days ending today.";

const overviewRoute = createRoute({
  method: "get",
  path: "/v1/analytics/overview",
  tags,
  security: TENANT_SECURITY,
  summary: "Reviews, funnel and response figures for a range",
  operationId: "getAnalyticsOverview",
  description: fromRollups,
  request: { query: AnalyticsQuery },
  responses: { 200: json(OverviewSchema), ...stdErrors },
});

const rebuildRoute = createRoute({
  method: "post",
  path: "/v1/analytics/rebuild",
  tags,
  security: TENANT_SECURITY,
  summary: "Recompute the rollups of a range from source rows (tenant_admin)",
  operationId: "rebuildAnalytics",
  description:
    "Backfill or repair: every rollup row of the tenant in the range (at most 366 days) is recomputed from solicitations, reviews and responses. Audited.",
  middleware: [canAdminister] as const,
  request: { body: jsonBody(RebuildBody) },
  responses: { 200: json(RebuildResultSchema), ...stdErrors },
});

const agencyUsageRoute = createRoute({
  method: "get",
  path: "/agency/usage",
  tags: ["Agency"],
  security: USER_SECURITY,
  summary: "Usage and health of each tenant the caller's agencies own, newest tenant first",
  operationId: "getAgencyUsage",
  description:
    "A keyset page of the owned tenants (like GET /agency/tenants), each with its active locations, contacts, review " +
    "requests sent this calendar month (UTC), reviews (all time and this month), average rating, response rate over the " +
    "last 30 days and reviews past their SLA. Read from the daily rollups and counters, one batch per shard. tenantId " +
    "narrows to one owned tenant; another agency's tenant is 404.",
  request: { query: AgencyUsageQuery },
  responses: { 200: json(AgencyUsagePageSchema), ...stdErrorsWithNotFound },
});

const agencyRoute = createRoute({
  method: "get",
  path: "/agency/analytics",
  tags: ["Agency"],
  security: USER_SECURITY,
  summary: "Rollups across the tenants the caller's agencies own",
  operationId: "getAgencyAnalytics",
  description: "Per tenant and in total. tenantId narrows to one owned tenant; another agency's tenant is 404.",
  request: { query: AgencyAnalyticsQuery },
  responses: { 200: json(AgencyAnalyticsSchema), ...stdErrorsWithNotFound },
});

export const analyticsRoutes: Router = createRouter()
  .openapi(overviewRoute, async (c) => c.json(await overview(svc(c), c.req.valid("query")), 200))
  .openapi(rebuildRoute, async (c) => c.json(await rebuildAnalytics(svc(c), c.req.valid("json")), 200))
  .openapi(agencyUsageRoute, async (c) =>
    c.json(await agencyUsage(c.env, agencyScopeOf(c.var.principal), c.req.valid("query")), 200),
  )
  .openapi(agencyRoute, async (c) =>
    c.json(await agencyAnalytics(c.env, agencyScopeOf(c.var.principal), c.req.valid("query")), 200),
  );
