import { z } from "@hono/zod-openapi";
import { IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, noContent, type Operation } from "../../lib/operation";
import {
  CreateReviewLinkBody,
  LocationReviewUrlsSchema,
  ReviewLinkListQuery,
  ReviewLinkSchema,
  ReviewLinkStatsQuery,
  ReviewLinkStatsSchema,
  UpdateReviewLinkBody,
} from "./schemas";
import {
  createReviewLink,
  deleteReviewLink,
  getReviewLink,
  listReviewLinks,
  locationReviewUrls,
  reviewLinkStats,
  updateReviewLink,
} from "./service";

// The review links' operations in the catalogue (src/lib/operation.ts).

const tags = ["Review links"];

export const listLocationReviewUrlsOperation = defineOperation({
  name: "location.review-urls",
  operationId: "listLocationReviewUrls",
  method: "get",
  path: "/v1/locations/{id}/review-urls",
  tags,
  summary: "A location's write-a-review URLs",
  description:
    "Google: https://search.google.com/local/writereview?placeid={googlePlaceId} (else the Google Business URL); Yelp and Facebook from the location's, else its brand's, ids or URLs. null: the site is not set up.",
  request: { params: IdParam },
  output: LocationReviewUrlsSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:locations"],
  access: "read",
  console: {},
  handler: async (ctx, input) => locationReviewUrls(ctx, input.id),
});

export const listReviewLinksOperation = defineOperation({
  name: "review-link.list",
  operationId: "listReviewLinks",
  method: "get",
  path: "/v1/review-links",
  tags,
  summary: "List review links, newest first",
  request: { query: ReviewLinkListQuery },
  output: paged(ReviewLinkSchema).openapi("ReviewLinkPage"),
  errors: stdErrors,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => listReviewLinks(ctx, input),
});

export const createReviewLinkOperation = defineOperation({
  name: "review-link.create",
  operationId: "createReviewLink",
  method: "post",
  path: "/v1/review-links",
  tags,
  summary: "Create a review link (manager)",
  description:
    "A public short link `/l/{slug}` for a location: each open is sent to one review site drawn at random by `weights` " +
    "(e.g. 70% Google, 20% Yelp, 10% Facebook), never by anything about the customer. A site the location has no page on gives its share to the others. " +
    "Print `qrSvgUrl`/`qrPngUrl` at the counter: scans are counted with source qr.",
  request: { body: CreateReviewLinkBody },
  status: 201,
  output: ReviewLinkSchema,
  errors: stdErrors,
  scopes: [],
  minRole: "manager",
  access: "write",
  console: {},
  handler: async (ctx, input) => createReviewLink(ctx, input),
});

export const getReviewLinkOperation = defineOperation({
  name: "review-link.get",
  operationId: "getReviewLink",
  method: "get",
  path: "/v1/review-links/{id}",
  tags,
  summary: "Get a review link",
  request: { params: IdParam },
  output: ReviewLinkSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => getReviewLink(ctx, input.id),
});

export const updateReviewLinkOperation = defineOperation({
  name: "review-link.update",
  operationId: "updateReviewLink",
  method: "patch",
  path: "/v1/review-links/{id}",
  tags,
  summary: "Update a review link (manager)",
  description:
    "Rename, change the weights, or deactivate (isActive false: the link and its QR code answer 404 until reactivated).",
  request: { params: IdParam, body: UpdateReviewLinkBody },
  output: ReviewLinkSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "manager",
  access: "write",
  idempotent: true,
  console: {},
  handler: async (ctx, { id, ...patch }) => updateReviewLink(ctx, id, patch),
});

export const deleteReviewLinkOperation = defineOperation({
  name: "review-link.delete",
  operationId: "deleteReviewLink",
  method: "delete",
  path: "/v1/review-links/{id}",
  tags,
  summary: "Delete a review link and its click counts (manager)",
  request: { params: IdParam },
  status: 204,
  statusText: "Deleted",
  output: noContent,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "manager",
  access: "write",
  destructive: true,
  idempotent: true,
  console: {},
  handler: async (ctx, input) => {
    await deleteReviewLink(ctx, input.id);
  },
});

export const reviewLinkStatsOperation = defineOperation({
  name: "review-link.stats",
  operationId: "getReviewLinkStats",
  method: "get",
  path: "/v1/review-links/{id}/stats",
  tags,
  summary: "Opens of a review link by source (link, qr) and site",
  request: { params: IdParam, query: ReviewLinkStatsQuery },
  output: ReviewLinkStatsSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, { id, ...query }) => reviewLinkStats(ctx, id, query),
});

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
export const operations: Operation[] = [
  listLocationReviewUrlsOperation,
  listReviewLinksOperation,
  createReviewLinkOperation,
  getReviewLinkOperation,
  updateReviewLinkOperation,
  deleteReviewLinkOperation,
  reviewLinkStatsOperation,
  locationReviewLinksOperation,
];
