import { z } from "@hono/zod-openapi";
import { paged } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { loadWidgetData } from "./data";
import { PublicWidgetSchema, WidgetSchema } from "./schemas";
import { listWidgets } from "./service";

// The widgets' operations in the catalogue (src/lib/operation.ts).

export const reviewWidgetsOperation = defineOperation({
  name: "review.widgets",
  summary: "Review widgets on the business's website",
  description:
    "Lists the review showcase widgets (what the business embeds on its own website): each widget's filters (minimum " +
    "rating, sites, count, newest or best first), the footer that discloses those filters to visitors, the embed codes " +
    "(script or iframe), and what it shows right now (the reviews, and the average over every review of its sites). " +
    "Filter by locationId. Use it to answer 'which reviews does our website show' or 'give me the embed code'.",
  input: z.object({
    locationId: z.string().min(1).max(64).optional().describe("only this location's widgets"),
    limit: z.number().int().min(1).max(20).default(10).describe("how many widgets (default 10)"),
  }),
  output: paged(WidgetSchema.extend({ showing: PublicWidgetSchema.pick({ summary: true, reviews: true }).nullable() })),
  scopes: ["read:reviews"],
  access: "read",
  variantOf: {
    operationId: "listWidgets",
    why: "each widget with what it shows right now (its reviews and average), read as the public widget reads them",
  },
  mcp: { title: "Review widgets on the business's website", agencyAware: true },
  handler: async (ctx, input) => {
    const page = await listWidgets(ctx, { locationId: input.locationId, limit: input.limit });
    const data = await Promise.all(
      page.data.map(async (w) => {
        const shown = w.isActive ? await loadWidgetData(ctx.db, w.publicKey, ctx.control) : null;
        return { ...w, showing: shown && { summary: shown.summary, reviews: shown.reviews } };
      }),
    );
    return { ...page, data };
  },
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [reviewWidgetsOperation];
