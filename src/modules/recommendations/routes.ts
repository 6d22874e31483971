import { createRoute } from "@hono/zod-openapi";
import {
  createRouter,
  errors,
  IdParam,
  json,
  jsonBody,
  paged,
  type Router,
  stdErrors,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canAdminister, canManage } from "../../middleware/tenant";
import { ApplyBody, RecommendationListQuery, RecommendationSchema, SnoozeBody } from "./schemas";
import {
  acceptRecommendation,
  applyRecommendation,
  getRecommendation,
  listRecommendations,
  rejectRecommendation,
  snoozeRecommendation,
} from "./service";

const tags = ["Recommendations"];
const moves =
  "Moves: pending -> accepted | rejected | snoozed | applied; snoozed -> pending (when snoozedUntil passes) | accepted | rejected; accepted -> applied. Anything else is 409 INVALID_TRANSITION.";

const list = createRoute({
  method: "get",
  path: "/v1/recommendations",
  tags,
  security: TENANT_SECURITY,
  summary: "List recommendations, newest first",
  operationId: "listRecommendations",
  request: { query: RecommendationListQuery },
  responses: { 200: json(paged(RecommendationSchema).openapi("RecommendationPage")), ...stdErrors },
});

const get = createRoute({
  method: "get",
  path: "/v1/recommendations/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Get a recommendation",
  operationId: "getRecommendation",
  request: { params: IdParam },
  responses: { 200: json(RecommendationSchema), ...stdErrorsWithNotFound },
});

const decide = (path: "accept" | "reject", summary: string) =>
  createRoute({
    method: "post",
    path: `/v1/recommendations/{id}/${path}`,
    operationId: path === "accept" ? "acceptRecommendation" : "rejectRecommendation",
    tags,
    security: TENANT_SECURITY,
    summary,
    description: moves,
    middleware: [canManage] as const,
    request: { params: IdParam },
    responses: { 200: json(RecommendationSchema), ...stdErrorsWithNotFound, 409: errors[409] },
  });

const accept = decide("accept", "Accept a recommendation (manager)");
const reject = decide("reject", "Reject a recommendation (manager)");

const snooze = createRoute({
  method: "post",
  path: "/v1/recommendations/{id}/snooze",
  tags,
  security: TENANT_SECURITY,
  summary: "Snooze until a time (manager)",
  description: moves,
  operationId: "snoozeRecommendation",
  middleware: [canManage] as const,
  request: { params: IdParam, body: jsonBody(SnoozeBody) },
  responses: { 200: json(RecommendationSchema), ...stdErrorsWithNotFound, 409: errors[409] },
});

const apply = createRoute({
  method: "post",
  path: "/v1/recommendations/{id}/apply",
  tags,
  security: TENANT_SECURITY,
  summary: "Execute the action and mark applied (tenant_admin)",
  operationId: "applyRecommendation",
  description:
    `${moves} actionPayload.kind: none (acknowledge), create_sla_rule, update_location, update_campaign, complete_experiment; ` +
    "each runs through the same service as its REST route (validation, audit). Values listed in actionPayload.requiredInput come in body.input. " +
    "If the action fails (400, 404, 409) the recommendation keeps its status.",
  middleware: [canAdminister] as const,
  request: { params: IdParam, body: jsonBody(ApplyBody) },
  responses: { 200: json(RecommendationSchema), ...stdErrorsWithNotFound, 409: errors[409] },
});

export const recommendationRoutes: Router = createRouter()
  .openapi(list, async (c) => c.json(await listRecommendations(svc(c), c.req.valid("query")), 200))
  .openapi(get, async (c) => c.json(await getRecommendation(svc(c), c.req.valid("param").id), 200))
  .openapi(accept, async (c) => c.json(await acceptRecommendation(svc(c), c.req.valid("param").id), 200))
  .openapi(reject, async (c) => c.json(await rejectRecommendation(svc(c), c.req.valid("param").id), 200))
  .openapi(snooze, async (c) =>
    c.json(await snoozeRecommendation(svc(c), c.req.valid("param").id, c.req.valid("json").until), 200),
  )
  .openapi(apply, async (c) =>
    c.json(await applyRecommendation(svc(c), c.req.valid("param").id, c.req.valid("json")), 200),
  );
