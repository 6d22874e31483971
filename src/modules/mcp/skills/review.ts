import { z } from "@hono/zod-openapi";
import { REVIEW_STATUSES } from "../../../db/schema";
import { listApprovalQueue, listApprovalQueueWithReviews } from "../../reviews/responses.service";
import { SiteType } from "../../reviews/schemas";
import { listReviews } from "../../reviews/service";
import { skill } from "./registry";

export const reviewListSkill = skill({
  name: "review.list",
  title: "List reviews",
  description:
    "Lists online reviews of the business (Google, Yelp, Facebook, Tripadvisor, Trustpilot and first-party), " +
    "newest first, with rating (1-5), text, author, sentiment and status (new or responded). Filter by location, " +
    "site, exact star rating, status, and since (reviews published on or after that day, UTC).",
  input: z.object({
    locationId: z.string().max(64).optional().describe("only this location's reviews"),
    siteType: SiteType.optional().describe("only this review site (first_party: reviews collected by this service)"),
    rating: z.number().int().min(1).max(5).optional().describe("only reviews with exactly this many stars"),
    status: z.enum(REVIEW_STATUSES).optional().describe("new: not yet answered; responded: a reply was published"),
    since: z.iso.datetime({ offset: true }).optional().describe("ISO date-time; compared by UTC day"),
    limit: z.number().int().min(1).max(200).default(25).describe("page size, 1 to 200 (default 25)"),
    cursor: z.string().max(512).optional().describe("pageInfo.endCursor from the previous page"),
  }),
  scopes: ["read:reviews"],
  access: "read",
  // outsider text: marked untrusted in results and the description (untrusted.ts)
  untrusted: ["data[].text", "data[].authorName"],
  agencyAware: true,
  handler: async (ctx, input) =>
    listReviews(ctx, {
      locationId: input.locationId,
      siteType: input.siteType,
      ratingMin: input.rating,
      ratingMax: input.rating,
      status: input.status,
      dateFrom: input.since ? new Date(input.since).toISOString().slice(0, 10) : undefined,
      limit: input.limit,
      cursor: input.cursor,
    }),
});

export const approvalListPendingSkill = skill({
  name: "approval.list-pending",
  title: "List review replies awaiting approval",
  description:
    "Lists drafted replies to reviews that were submitted for approval and wait for a manager, oldest first, " +
    "with the reply text, who it is assigned to and the review it answers (stars, text, author, site, location, date). " +
    "The review needs read:reviews: without it each review is null and reviews is withheld.",
  input: z.object({
    assignedToUserId: z.string().max(64).optional().describe("only replies assigned to this user"),
    limit: z.number().int().min(1).max(100).default(25).describe("how many, 1 to 100 (default 25)"),
  }),
  scopes: ["read:approvals"],
  access: "read",
  // outsider text: marked untrusted in results and the description (untrusted.ts)
  untrusted: ["data[].text", "data[].review.text", "data[].review.authorName"],
  handler: async (ctx, input) => {
    // review content belongs to read:reviews (interface spec, Authentication 11): read:approvals alone gets the replies
    if (!ctx.caller.scopes.includes("read:reviews")) {
      const replies = await listApprovalQueue(ctx, input);
      return { data: replies.map((r) => ({ ...r, review: null })), total: replies.length, reviews: "withheld" };
    }
    const data = await listApprovalQueueWithReviews(ctx, input);
    return { data, total: data.length, reviews: "shown" };
  },
});
