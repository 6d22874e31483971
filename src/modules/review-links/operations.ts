import { z } from "@hono/zod-openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { LocationReviewUrlsSchema, ReviewLinkSchema, ReviewLinkStatsSchema } from "./schemas";
import { listReviewLinks, locationReviewUrls, reviewLinkStats } from "./service";

// The review links' operations in the catalogue (src/lib/operation.ts).

export const locationReviewLinksOperation = defineOperation({
  name: "location.review-links",
  summary: "Review links and QR codes of a location",
  description:
    "For one location: its write-a-review URLs (Google from the place id, Yelp, Facebook; null when not set up) and its " +
    "review links: public short links that send each customer to one review site drawn by the configured weights (never " +
    "by the customer's sentiment), each with its QR code URLs (SVG, PNG) for printing and its opens so far by source " +
    "(link, qr) and by site. Use it to answer 'where do I send customers to review us' or 'how often is the counter QR code scanned'.",
  input: z.object({ locationId: z.string().min(1).max(64).describe("the location's id (from location.list)") }),
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
