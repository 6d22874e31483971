import { z } from "@hono/zod-openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { ScoreSnapshotSchema } from "./schemas";
import { latestScore } from "./service";

// The reputation score's operations in the catalogue (src/lib/operation.ts).

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
export const operations: Operation[] = [scoreLocationOperation];
