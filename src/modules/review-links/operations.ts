import { z } from "@hono/zod-openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { LocationReviewUrlsSchema, ReviewLinkSchema, ReviewLinkStatsSchema } from "./schemas";
import { listReviewLinks, locationReviewUrls, reviewLinkStats } from "./service";

// The review links' operations in the catalogue (src/lib/operation.ts).

export const locationReviewLinksOperation = defineOperation({
  name: "location.review-links",
  summary: "Review links and QR codes of a location",
  description:
    "A location's write-a-review URLs per site and its review links (short links to a site drawn by weight, never " +
    "by sentiment) with QR code URLs and opens. Use it for 'where do customers review us' or 'QR code scans'.",
  input: z.object({ locationId: z.string().min(1).max(64) }),
  output: z.object({
    reviewUrls: LocationReviewUrlsSchema,
    reviewLinks: z.array(ReviewLinkSchema.extend({ clicks: ReviewLinkStatsSchema })),
  }),
  scopes: ["read:locations"],
  access: "read",
  mcp: { title: "Review links and QR codes of a location", agencyAware: true },
  handler: async (ctx, input) => {
    const urls = await locationReviewUrls(ctx, input.locationId);
    const page = await listReviewLinks(ctx, { locationId: input.locationId, limit: 50 });
    const links = await Promise.all(
      page.data.map(async (l) => ({ ...l, clicks: await reviewLinkStats(ctx, l.id, {}) })),
    );
    return { reviewUrls: urls, reviewLinks: links };
  },
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [locationReviewLinksOperation];
