import { z } from "@hono/zod-openapi";
import { RECOMMENDATION_STATUSES } from "../../db/schema";
import { errors, IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { ApplyBody, RecommendationListQuery, RecommendationSchema, SnoozeBody } from "./schemas";
import {
  acceptRecommendation,
  applyRecommendation,
  getRecommendation,
  listRecommendations,
  listRecommendationsForSkill,
  rejectRecommendation,
  snoozeRecommendation,
} from "./service";

// The recommendations' operations in the catalogue (src/lib/operation.ts): every role reads them (API
// keys with read:recommendations, identity/scopes.ts); managers decide, a tenant_admin applies.

const tags = ["Recommendations"];
const moves =
  "Moves: pending -> accepted | rejected | snoozed | applied; snoozed -> pending (when snoozedUntil passes) | accepted | rejected; accepted -> applied. Anything else is 409 INVALID_TRANSITION.";
const withTransitions = { ...stdErrorsWithNotFound, 409: errors[409] };

export const listRecommendationsOperation = defineOperation({
  name: "recommendation.list-page",
  operationId: "listRecommendations",
  method: "get",
  path: "/v1/recommendations",
  tags,
  summary: "List recommendations, newest first",
  request: { query: RecommendationListQuery },
  output: paged(RecommendationSchema).openapi("RecommendationPage"),
  errors: stdErrors,
  scopes: ["read:recommendations"],
  access: "read",
  handler: async (ctx, input) => listRecommendations(ctx, input),
});

export const getRecommendationOperation = defineOperation({
  name: "recommendation.get",
  operationId: "getRecommendation",
  method: "get",
  path: "/v1/recommendations/{id}",
  tags,
  summary: "Get a recommendation",
  request: { params: IdParam },
  output: RecommendationSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:recommendations"],
  access: "read",
  handler: async (ctx, input) => getRecommendation(ctx, input.id),
});

export const acceptRecommendationOperation = defineOperation({
  name: "recommendation.accept",
  operationId: "acceptRecommendation",
  method: "post",
  path: "/v1/recommendations/{id}/accept",
  tags,
  summary: "Accept a recommendation (manager)",
  description: moves,
  request: { params: IdParam },
  output: RecommendationSchema,
  errors: withTransitions,
  scopes: [],
  minRole: "manager",
  access: "write",
  handler: async (ctx, input) => acceptRecommendation(ctx, input.id),
});

export const rejectRecommendationOperation = defineOperation({
  name: "recommendation.reject",
  operationId: "rejectRecommendation",
  method: "post",
  path: "/v1/recommendations/{id}/reject",
  tags,
  summary: "Reject a recommendation (manager)",
  description: moves,
  request: { params: IdParam },
  output: RecommendationSchema,
  errors: withTransitions,
  scopes: [],
  minRole: "manager",
  access: "write",
  handler: async (ctx, input) => rejectRecommendation(ctx, input.id),
});

export const snoozeRecommendationOperation = defineOperation({
  name: "recommendation.snooze",
  operationId: "snoozeRecommendation",
  method: "post",
  path: "/v1/recommendations/{id}/snooze",
  tags,
  summary: "Snooze until a time (manager)",
  description: moves,
  request: { params: IdParam, body: SnoozeBody },
  output: RecommendationSchema,
  errors: withTransitions,
  scopes: [],
  minRole: "manager",
  access: "write",
  handler: async (ctx, input) => snoozeRecommendation(ctx, input.id, input.until),
});

export const applyRecommendationOperation = defineOperation({
  name: "recommendation.apply",
  operationId: "applyRecommendation",
  method: "post",
  path: "/v1/recommendations/{id}/apply",
  tags,
  summary: "Execute the action and mark applied (tenant_admin)",
  description:
    `${moves} actionPayload.kind: none (acknowledge), create_sla_rule, update_location, update_campaign, complete_experiment; ` +
    "each runs through the same service as its REST route (validation, audit). Values listed in actionPayload.requiredInput come in body.input. " +
    "If the action fails (400, 404, 409) the recommendation keeps its status.",
  request: { params: IdParam, body: ApplyBody },
  output: RecommendationSchema,
  errors: withTransitions,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  handler: async (ctx, { id, ...body }) => applyRecommendation(ctx, id, body),
});

export const recommendationListOperation = defineOperation({
  name: "recommendation.list",
  summary: "Recommendations",
  description:
    "Suggested actions from the business's data (slow replies, negative-review spikes, a better channel or " +
    "template, missing review-site ids, ...) with priority, confidence and risk.",
  input: z.object({
    status: z.enum(RECOMMENDATION_STATUSES).optional(),
    riskLevel: z.enum(["low", "medium", "high"]).optional(),
    scope: z.string().max(100).optional().describe("location:<id> or tenant:<id>"),
    limit: z.number().int().min(1).max(200).default(25),
  }),
  output: z.object({ data: z.array(RecommendationSchema) }),
  scopes: ["read:recommendations"],
  access: "read",
  variantOf: {
    operationId: "listRecommendations",
    why: "the spec's MCP answer is {data} of a skill's projection; GET /v1/recommendations answers a cursor page of records",
  },
  mcp: { title: "Recommendations" },
  handler: async (ctx, input) => ({ data: await listRecommendationsForSkill(ctx, input) }),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  listRecommendationsOperation,
  getRecommendationOperation,
  acceptRecommendationOperation,
  rejectRecommendationOperation,
  snoozeRecommendationOperation,
  applyRecommendationOperation,
  recommendationListOperation,
];
