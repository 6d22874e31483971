import { z } from "@hono/zod-openapi";
import { paged } from "../../../lib/openapi";
import { loadWidgetData } from "../../widgets/data";
import { PublicWidgetSchema, WidgetSchema } from "../../widgets/schemas";
import { listWidgets } from "../../widgets/service";
import { skill } from "./registry";

export const reviewWidgetsSkill = skill({
  name: "review.widgets",
  title: "Review widgets on the business's website",
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
  agencyAware: true,
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
