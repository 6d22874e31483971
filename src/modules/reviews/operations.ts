import { z } from "@hono/zod-openapi";
import { AUTO_REPLY_STATUSES, REVIEW_STATUSES } from "../../db/schema";
import { dayRangeInput, rangeOf } from "../../lib/day-range";
import { ErrorResponseSchema, errors, IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, holdsScope, type Operation } from "../../lib/operation";
import { AutoReplySchema } from "./auto-replies/schemas";
import { listAutoReplies } from "./auto-replies/service";
import { publishResponse } from "./publish";
import {
  AnsweredReviewSchema,
  ApproveResponseBody,
  OverdueReviewSchema,
  PublishResponseBody,
  QueueQuery,
  RejectResponseBody,
  ReviewResponseSchema,
  UpdateResponseBody,
} from "./responses.schemas";
import {
  approveResponse,
  listApprovalQueue,
  listApprovalQueueWithReviews,
  rejectResponse,
  updateResponse,
} from "./responses.service";
import { reviewContext } from "./review-context";
import { ReviewSchema, SiteType, SyncResultSchema } from "./schemas";
import { listReviews } from "./service";
import { listOverdue } from "./sla.service";
import { requestSync } from "./sync";
import { requestReviewSyncJob, settleReviewSync } from "./sync-job";

// The review operations served by REST, MCP and agents alike (src/lib/operation.ts).

export const publishResponseOperation = defineOperation({
  name: "response.mark-published",
  operationId: "publishResponse",
  method: "post",
  path: "/v1/responses/{id}/publish",
  tags: ["Reviews"],
  summary: "Publish an approved response to the review site (manager)",
  description:
    "First-party reviews publish locally. Google, Trustpilot and Yelp (partner Respond to Reviews, when configured) publish through the " +
    "location's integration. 422 PUBLISH_UNSUPPORTED with details.replyUrl when the site has no reply API or there is no connection; " +
    "502 UPSTREAM_ERROR with the site's error when it refuses. Both leave the response approved. " +
    "The site's own rules are checked first: Yelp (Respond to Reviews) 400 VALIDATION_ERROR over 5,000 characters or with emoji, " +
    "429 RATE_LIMITED after 20 replies per location per day; a Yelp location without the feature (R2R_COMMENTS_NOT_ALLOWED) is " +
    "422 PUBLISH_UNSUPPORTED reason no_reply_access, remembered on the integration (replyAccess denied). " +
    'Posted by hand instead (Facebook, Yelp without a partner token, any site): send `{"manual": true, "externalUrl"?}` to record it ' +
    "as published (`publishedVia: manual`, `publishedByUserId`, `publishedUrl`) without calling the site; audited and the review marked responded as for an API publish.",
  request: { params: IdParam, body: PublishResponseBody, bodyRequired: false },
  output: ReviewResponseSchema,
  errors: {
    ...stdErrorsWithNotFound,
    409: errors[409],
    422: errors[422],
    429: errors[429],
    502: {
      description: "The review site refused the reply (UPSTREAM_ERROR)",
      content: { "application/json": { schema: ErrorResponseSchema } },
    },
  },
  // REST: API keys may not publish (identity/scopes.ts); the MCP door below is the manual publish only
  scopes: [],
  minRole: "manager",
  access: "write",
  destructive: false,
  // outsider text: marked untrusted in results and the description (mcp/skills/untrusted.ts)
  untrusted: ["text"],
  // the reply becomes public record here (published, review responded) on the user's word alone
  confirm: (input) =>
    `Mark reply ${input.id} as posted on the review site${input.externalUrl ? ` (${input.externalUrl})` : ""}? Only if it is visible there now.`,
  mcp: {
    title: "Mark a review reply as posted by hand",
    description:
      "Records that an approved reply to a review was posted by hand on the review site (Facebook, Yelp and others " +
      "without a reply API): the reply becomes published (publishedVia manual) and the review responded. Call it only " +
      "after the reply is really visible on the site. Needs the reply's id (from approval.list-pending or inbox.get) " +
      "and, if known, the URL where the posted reply can be seen.",
    // the spec's skill: a manual publish only, admitted by write:responses (interface-spec, Authentication 11)
    fixed: { manual: true },
    scopes: ["write:responses"],
    rename: { id: "responseId" },
    describe: { id: "the approved reply's id", externalUrl: "where the posted reply can be seen (http or https)" },
  },
  handler: async (ctx, input) => {
    const { id, ...body } = input as z.infer<typeof IdParam> & z.infer<typeof PublishResponseBody>;
    return publishResponse(ctx, id, undefined, body);
  },
});

export const listOverdueResponsesOperation = defineOperation({
  name: "sla.overdue",
  operationId: "listOverdueResponses",
  method: "get",
  path: "/v1/responses/overdue",
  tags: ["Reviews"],
  summary: "Reviews past an active SLA rule's response window without a published response, most overdue first",
  request: { query: QueueQuery.pick({ limit: true }) },
  output: z.array(OverdueReviewSchema),
  errors: stdErrors,
  scopes: ["read:reviews"],
  access: "read",
  untrusted: ["[].text", "[].authorName"],
  mcp: {
    title: "List reviews past their reply SLA",
    description:
      "Reviews past an active SLA rule's response window that have no published reply yet, most overdue first, each " +
      "with sla.dueAt (when the reply was due), sla.escalateAt, sla.escalatedAt and the rule's name. Use it to find " +
      "which replies are late; the inbox triage card shows it next to the inbox items (matched by reviewId).",
    // MCP's structuredContent is an object: { data: [...] } (REST answers the bare array)
    wrap: "data",
    // an MCP answer must fit a model's context (REST: default 50, max 200)
    limit: { default: 25, max: 100 },
    describe: { limit: "at most this many reviews, most overdue first" },
  },
  // the optimization agent reads the bare array of the REST route (agents/agents/optimization.ts)
  agent: { scopes: ["read:reviews"] },
  handler: async (ctx, input) => listOverdue(ctx, input),
});

// The reply approval steps, also the buttons of the MCP Apps reply approval card (mcp/apps/cards.ts).
// REST keeps them to signed-in users (identity/scopes.ts); over MCP write:responses admits them, with
// the role checked per call for a user and the user's confirmation asked first (mcp/confirmations.ts).
const transitions = { ...stdErrorsWithNotFound, 409: errors[409] };
const replyId = { id: "the reply's id (from approval.list-pending or inbox.get)" };

export const approveResponseOperation = defineOperation({
  name: "response.approve",
  operationId: "approveResponse",
  method: "post",
  path: "/v1/responses/{id}/approve",
  tags: ["Reviews"],
  summary: "Approve a submitted response (manager), as it is or with the approver's edit",
  request: { params: IdParam, body: ApproveResponseBody, bodyRequired: false },
  output: ReviewResponseSchema,
  errors: transitions,
  scopes: [],
  minRole: "manager",
  access: "write",
  idempotent: false,
  untrusted: ["text"],
  // an approved reply is one step from public: the user says so, not a model reading a review
  confirm: (input) =>
    input.text
      ? `Replace the text of reply ${input.id} with: "${input.text.slice(0, 200)}" and approve it so it can be published?`
      : `Approve reply ${input.id} so it can be published?`,
  mcp: {
    title: "Approve a drafted review reply",
    description:
      "Approves a reply that was submitted for approval (status submitted -> approved); it can then be published. " +
      "With text, the approver's edit replaces the reply's text as it is approved. " +
      "Needs the manager role for a signed-in user. 409 INVALID_TRANSITION when the reply is not submitted.",
    scopes: ["write:responses"],
    rename: { id: "responseId" },
    describe: { ...replyId, text: "the approver's edit of the reply (optional): replaces its text as it is approved" },
  },
  handler: async (ctx, input) => {
    const { id, ...body } = input as z.infer<typeof IdParam> & z.infer<typeof ApproveResponseBody>;
    return approveResponse(ctx, id, body);
  },
});

export const rejectResponseOperation = defineOperation({
  name: "response.reject",
  operationId: "rejectResponse",
  method: "post",
  path: "/v1/responses/{id}/reject",
  tags: ["Reviews"],
  summary: "Reject a submitted response (manager)",
  request: { params: IdParam, body: RejectResponseBody, bodyRequired: false },
  output: ReviewResponseSchema,
  errors: transitions,
  scopes: [],
  minRole: "manager",
  access: "write",
  untrusted: ["text"],
  confirm: (input) => `Reject reply ${input.id}${input.reason ? ` ("${input.reason}")` : ""}?`,
  mcp: {
    title: "Reject a drafted review reply",
    description:
      "Rejects a reply that was submitted for approval (submitted -> rejected), with an optional reason the writer sees; " +
      "an edit returns it to draft. Needs the manager role for a signed-in user.",
    scopes: ["write:responses"],
    rename: { id: "responseId" },
    describe: { ...replyId, reason: "why, shown to the reply's writer (optional)" },
  },
  handler: async (ctx, input) => {
    const { id, ...body } = input as z.infer<typeof IdParam> & z.infer<typeof RejectResponseBody>;
    return rejectResponse(ctx, id, body);
  },
});

export const updateResponseOperation = defineOperation({
  name: "response.update",
  operationId: "updateResponse",
  method: "patch",
  path: "/v1/responses/{id}",
  tags: ["Reviews"],
  summary: "Edit a draft or rejected response (tenant_user); a rejected one returns to draft",
  request: { params: IdParam, body: UpdateResponseBody },
  output: ReviewResponseSchema,
  errors: transitions,
  scopes: [],
  minRole: "tenant_user",
  access: "write",
  destructive: true,
  idempotent: true,
  untrusted: ["text"],
  // the text replaces the draft a person wrote: the user confirms it
  confirm: (input) => `Replace the text of reply ${input.id} with: "${input.text.slice(0, 200)}"?`,
  mcp: {
    title: "Edit a drafted review reply",
    description:
      "Replaces the text of a draft or rejected reply (a rejected one returns to draft). Needs the tenant_user role for a signed-in user.",
    scopes: ["write:responses"],
    rename: { id: "responseId" },
    omit: ["assignedToUserId"],
    describe: { ...replyId, text: "the reply's new text" },
  },
  handler: async (ctx, input) => {
    const { id, ...body } = input as z.infer<typeof IdParam> & z.infer<typeof UpdateResponseBody>;
    return updateResponse(ctx, id, body);
  },
});

// The MCP tools over the reviews' services that differ from their REST twins (the spec's vocabulary, another answer).

export const reviewListOperation = defineOperation({
  name: "review.list",
  summary: "List reviews",
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
  output: paged(ReviewSchema),
  scopes: ["read:reviews"],
  access: "read",
  variantOf: {
    operationId: "listReviews",
    why: "the spec's MCP input is rating (exact) and since (a date-time); GET /v1/reviews takes ratingMin/ratingMax/dateFrom/dateTo",
  },
  // outsider text: marked untrusted in results and the description (mcp/skills/untrusted.ts)
  untrusted: ["data[].text", "data[].authorName"],
  mcp: { title: "List reviews", agencyAware: true },
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

export const approvalListPendingOperation = defineOperation({
  name: "approval.list-pending",
  summary: "List review replies awaiting approval",
  description:
    "Lists drafted replies to reviews that were submitted for approval and wait for a manager, oldest first, " +
    "with the reply text, who it is assigned to and the review it answers (stars, text, author, site, location, date). " +
    "The review needs read:reviews: without it each review is null and reviews is withheld.",
  input: z.object({
    assignedToUserId: z.string().max(64).optional().describe("only replies assigned to this user"),
    limit: z.number().int().min(1).max(100).default(25).describe("how many, 1 to 100 (default 25)"),
  }),
  output: z.object({
    data: z.array(
      ReviewResponseSchema.extend({
        review: AnsweredReviewSchema.nullable().describe("the review the reply answers; null when reviews is withheld"),
      }),
    ),
    total: z.number().int(),
    reviews: z
      .enum(["shown", "withheld"])
      .describe("withheld: the caller was not granted read:reviews, so every data[].review is null"),
  }),
  scopes: ["read:approvals"],
  access: "read",
  variantOf: {
    operationId: "listResponseApprovalQueue",
    why: "the MCP answer is {data, total} with the spec's limit (max 100); GET /v1/responses/approval-queue answers a bare array",
  },
  // outsider text: marked untrusted in results and the description (mcp/skills/untrusted.ts)
  untrusted: ["data[].text", "data[].review.text", "data[].review.authorName"],
  mcp: { title: "List review replies awaiting approval" },
  handler: async (ctx, input) => {
    // review content belongs to read:reviews (interface spec, Authentication 11): read:approvals alone gets the replies
    if (!holdsScope(ctx, "read:reviews")) {
      const replies = await listApprovalQueue(ctx, input);
      return {
        data: replies.map((r) => ({ ...r, review: null })),
        total: replies.length,
        reviews: "withheld" as const,
      };
    }
    const data = await listApprovalQueueWithReviews(ctx, input);
    return { data, total: data.length, reviews: "shown" as const };
  },
});

export const reviewAutoRepliesOperation = defineOperation({
  name: "review.auto-replies",
  summary: "List automatic review replies",
  description:
    "Lists the replies that auto-reply rules drafted for new reviews, oldest first: status queued (waiting in the approval queue), " +
    "scheduled (publishes by itself at publishAt unless someone rejects or cancels it), published, cancelled (a person intervened: " +
    "cancelReason) or failed (lastError). Each names the review, the response and the rule. Use it to see what will go out on its own soon.",
  input: z.object({
    status: z.enum(AUTO_REPLY_STATUSES).optional().describe("only auto replies in this status, e.g. scheduled"),
    reviewId: z.string().max(64).optional().describe("only the auto reply of this review"),
    limit: z.number().int().min(1).max(200).default(25).describe("page size, 1 to 200 (default 25)"),
    cursor: z.string().max(512).optional().describe("pageInfo.endCursor from the previous page"),
  }),
  output: paged(AutoReplySchema),
  scopes: ["read:approvals", "read:reviews"],
  access: "read",
  variantOf: {
    operationId: "listAutoReplies",
    why: "page size default 25 and the spec's field descriptions; derivable from GET /v1/auto-replies with an MCP door",
  },
  mcp: { title: "List automatic review replies" },
  handler: async (ctx, input) => listAutoReplies(ctx, input),
});

export const reviewSyncOperation = defineOperation({
  name: "review.sync",
  summary: "Sync reviews from the review sites",
  description:
    "Fetches new and changed reviews from every enabled review-site connection (or one location's). Without the MCP tasks " +
    "extension it answers at once what was queued ({queued, bySite, jobs}); with it, a task whose result adds each " +
    "connection's outcome ({outcome: {synced, failed, results}}) once every sync has finished.",
  input: z.object({ locationId: z.string().max(64).optional().describe("only this location's connections") }),
  output: SyncResultSchema.extend({
    outcome: z
      .object({
        synced: z.number().int(),
        failed: z.number().int(),
        results: z.array(
          z.object({
            integrationId: z.string(),
            siteType: z.string().nullable(),
            status: z.enum(["ok", "error"]),
            error: z.string().nullable().optional(),
          }),
        ),
      })
      .optional()
      .describe("a task's result only: each queued connection's sync outcome"),
  }),
  scopes: ["write:reviews"],
  minRole: "tenant_user",
  access: "write",
  idempotent: true,
  openWorld: true,
  variantOf: {
    operationId: "syncReviews",
    why: "a long job for MCP clients with the tasks extension, whose result adds each connection's outcome",
  },
  confirm: (input) =>
    `Fetch reviews from the review sites now${input.locationId ? ` for location ${input.locationId}` : ""}?`,
  mcp: {
    title: "Sync reviews from the review sites",
    longJob: {
      kind: "review_sync",
      unit: "connections",
      start: (ctx, input, owner) => requestReviewSyncJob(ctx, input, owner),
      // tasks/get reads each queued connection's outcome first
      settle: (ctx, job) => settleReviewSync(ctx, job as never),
    },
  },
  handler: (ctx, input) => requestSync(ctx, input),
});

// The agents' reads over the reviews' services (agent tools, no MCP door).

export const searchReviewsOperation = defineOperation({
  name: "reviews.search",
  summary:
    "Reviews published in a window (newest first, up to 500), with rating, text, language, sentiment and topics.",
  input: z.object({
    ...dayRangeInput,
    locationId: z.string().min(1).max(64).optional(),
    ratingMax: z.number().min(1).max(5).optional(),
    limit: z.number().int().min(1).max(500).default(200),
  }),
  output: z.object({ range: z.object({ from: z.string(), to: z.string() }), data: z.array(ReviewSchema) }),
  scopes: ["read:reviews"],
  access: "read",
  variantOf: {
    operationId: "listReviews",
    why: "an agent's collector: up to 500 reviews of a window across pages, where GET /v1/reviews answers one page",
  },
  untrusted: ["data[].text", "data[].authorName"],
  agent: { scopes: ["read:reviews"] },
  handler: async (ctx, i) => {
    const range = rangeOf(i);
    const data = [];
    let cursor: string | undefined;
    do {
      const page = await listReviews(ctx, {
        locationId: i.locationId,
        ratingMax: i.ratingMax,
        dateFrom: range.from,
        dateTo: range.to,
        limit: Math.min(200, i.limit - data.length),
        cursor,
      });
      data.push(...page.data);
      cursor = page.pageInfo.hasNextPage ? (page.pageInfo.endCursor ?? undefined) : undefined;
    } while (cursor && data.length < i.limit);
    return { range, data };
  },
});

export const reviewWithContextOperation = defineOperation({
  name: "review.get",
  summary:
    "One review (rating, text, language, sentiment, topics) with its brand's name, voice and tone and the location's contact.",
  input: z.object({ reviewId: z.string().min(1).max(64) }),
  output: z.object({
    review: ReviewSchema.pick({
      id: true,
      locationId: true,
      rating: true,
      text: true,
      authorName: true,
      language: true,
      sentiment: true,
      topics: true,
    }),
    brand: z.object({
      id: z.string(),
      name: z.string(),
      brandVoice: z.string().nullable(),
      brandTone: z.string().nullable(),
    }),
    contact: z.string().nullable(),
  }),
  scopes: ["read:reviews"],
  access: "read",
  variantOf: {
    operationId: "getReview",
    why: "the review with its brand's voice and tone and its location's contact (what a reply drafter needs in one call); GET /v1/reviews/{id} answers the review",
  },
  untrusted: ["review.text", "review.authorName"],
  agent: { scopes: ["read:reviews"] },
  handler: (ctx, i) => reviewContext(ctx, i.reviewId),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  publishResponseOperation,
  listOverdueResponsesOperation,
  approveResponseOperation,
  rejectResponseOperation,
  updateResponseOperation,
  reviewListOperation,
  approvalListPendingOperation,
  reviewAutoRepliesOperation,
  reviewSyncOperation,
  searchReviewsOperation,
  reviewWithContextOperation,
];
