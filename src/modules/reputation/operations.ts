import { z } from "@hono/zod-openapi";
import { IdParam, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { ScoreHistoryQuery, ScoreHistorySchema, ScoreSnapshotSchema } from "./schemas";
import { latestScore, recomputeScore, scoreHistory } from "./service";

// The reputation score's operations in the catalogue (src/lib/operation.ts).

const tags = ["Reputation score"];
const formula =
  "Score 0..100 = 0.35 rating + 0.20 velocity + 0.20 sentiment + 0.15 response health + 0.10 platform diversity (docs/analytics.md).";

export const getLocationScoreOperation = defineOperation({
  name: "score.latest",
  operationId: "getLocationScore",
  method: "get",
  path: "/v1/locations/{id}/score",
  tags,
  summary: "The location's latest daily score snapshot",
  description: `${formula} Computed now (and stored as today's snapshot) when the location has none yet.`,
  request: { params: IdParam },
  output: ScoreSnapshotSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:locations"],
  access: "read",
  handler: async (ctx, input) => latestScore(ctx, input.id),
});

export const recomputeLocationScoreOperation = defineOperation({
  name: "score.recompute",
  operationId: "recomputeLocationScore",
  method: "post",
  path: "/v1/locations/{id}/score/recompute",
  tags,
  summary: "Recompute today's snapshot now (manager)",
  description: `${formula} Replaces today's snapshot; audited.`,
  request: { params: IdParam },
  output: ScoreSnapshotSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "manager",
  access: "write",
  handler: async (ctx, input) => recomputeScore(ctx, input.id),
});

export const getLocationScoreHistoryOperation = defineOperation({
  name: "score.history",
  operationId: "getLocationScoreHistory",
  method: "get",
  path: "/v1/locations/{id}/score/history",
  tags,
  summary: "Daily snapshots, newest first",
  request: { params: IdParam, query: ScoreHistoryQuery },
  output: ScoreHistorySchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:locations"],
  access: "read",
  handler: async (ctx, { id, ...query }) => scoreHistory(ctx, id, query),
});

export const scoreLocationOperation = defineOperation({
  name: "score.location",
  summary: "Reputation score of a location",
  description: "A location's latest reputation score (0-100) with its components and when it was computed.",
  input: z.object({ locationId: z.string().min(1).max(64) }),
  output: ScoreSnapshotSchema,
  scopes: ["read:score"],
  access: "read",
  variantOf: {
    operationId: "getLocationScore",
    why: "the spec's tool input is locationId; it computes a snapshot when none exists yet",
  },
  mcp: { title: "Reputation score of a location", agencyAware: true },
  handler: async (ctx, input) => latestScore(ctx, input.locationId),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  getLocationScoreOperation,
  recomputeLocationScoreOperation,
  getLocationScoreHistoryOperation,
  scoreLocationOperation,
];
