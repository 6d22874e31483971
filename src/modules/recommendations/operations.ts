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
export const operations: Operation[] = [recommendationListOperation];
