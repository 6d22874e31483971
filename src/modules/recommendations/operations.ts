import { z } from "@hono/zod-openapi";
import { RECOMMENDATION_STATUSES } from "../../db/schema";
import { defineOperation, type Operation } from "../../lib/operation";
import { RecommendationSchema } from "./schemas";
import { listRecommendationsForSkill } from "./service";

// The recommendations' operations in the catalogue (src/lib/operation.ts).

export const recommendationListOperation = defineOperation({
  name: "recommendation.list",
  summary: "Recommendations",
  description:
    "Suggested actions generated from the business's data (slow replies, negative-review spikes, a better " +
    "channel or template variant, missing review-site ids, ...), with priority, confidence and risk level. " +
    "scope is 'location:<id>' or 'tenant:<id>'.",
  input: z.object({
    status: z.enum(RECOMMENDATION_STATUSES).optional().describe("pending, accepted, rejected, snoozed or applied"),
    riskLevel: z.enum(["low", "medium", "high"]).optional(),
    scope: z.string().max(100).optional().describe("e.g. location:<locationId>"),
    limit: z.number().int().min(1).max(200).default(25).describe("how many (default 25)"),
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
export const operations: Operation[] = [recommendationListOperation];
