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
    "The review widgets the business embeds on its website: filters, the footer disclosing them, embed codes and " +
    "what each shows now. Use it for 'which reviews does our website show' or 'the embed code'.",
  input: z.object({
    locationId: z.string().min(1).max(64).optional(),
    limit: z.number().int().min(1).max(20).default(10),
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
