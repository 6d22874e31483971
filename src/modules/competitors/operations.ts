import { z } from "@hono/zod-openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { listCompetitorsForSkill } from "./service";

// The competitors' operations in the catalogue (src/lib/operation.ts).

export const competitorListOperation = defineOperation({
  name: "competitor.list",
  summary: "Tracked competitors",
  description:
    "Competitors tracked for the business's locations, with their average rating and review count where known.",
  input: z.object({
    locationId: z.string().max(64).optional(),
    limit: z.number().int().min(1).max(100).default(25),
  }),
  output: z.object({
    data: z.array(
      z.object({
        id: z.string(),
        locationId: z.string(),
        name: z.string(),
        averageRating: z.number().nullable(),
        reviewCount: z.number().int().nullable(),
        bySite: z.record(z.string(), z.unknown()),
        siteIds: z.record(z.string(), z.string().nullable()),
        lastRefreshedAt: z.string().nullable(),
      }),
    ),
  }),
  scopes: ["read:competitors"],
  access: "read",
  variantOf: {
    operationId: "listCompetitors",
    why: "the MCP answer carries bySite and siteIds per competitor, unpaged; GET /v1/competitors answers a cursor page of records",
  },
  mcp: { title: "Tracked competitors" },
  handler: async (ctx, input) => ({ data: await listCompetitorsForSkill(ctx, input) }),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [competitorListOperation];
