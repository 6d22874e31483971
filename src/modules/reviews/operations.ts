import { z } from "@hono/zod-openapi";
import { AUTO_REPLY_STATUSES, REVIEW_STATUSES } from "../../db/schema";
import { dayRangeInput, rangeOf } from "../../lib/day-range";
import { ErrorResponseSchema, errors, IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, holdsScope, type Operation, reply } from "../../lib/operation";
import { autoReplyOperations } from "./auto-replies/operations";
import { AutoReplySchema } from "./auto-replies/schemas";
import { listAutoReplies } from "./auto-replies/service";
import { publishResponse } from "./publish";
import { responseOperations } from "./responses.operations";
import {
  AnsweredReviewSchema,
  ApproveResponseBody,
  CreateResponseBody,
  OverdueReviewSchema,
  PublishResponseBody,
  QueueQuery,
  RejectResponseBody,
  ReviewIdParam,
  ReviewResponseSchema,
  UpdateResponseBody,
} from "./responses.schemas";
import {
  approveResponse,
  createResponse,
  listApprovalQueue,
  listApprovalQueueWithReviews,
  listResponsesForReview,
  rejectResponse,
  updateResponse,
} from "./responses.service";
import { reviewContext } from "./review-context";
import {
  IngestReviewBody,
  ReviewListQuery,
  ReviewSchema,
  SiteType,
  SyncResultSchema,
  SyncReviewsBody,
} from "./schemas";
import { getReview, ingestReview, listReviews } from "./service";
import { slaOperations } from "./sla.operations";
import { listOverdue } from "./sla.service";
import { requestSync } from "./sync";
import { requestReviewSyncJob, settleReviewSync } from "./sync-job";

// The review operations served by REST, MCP and agents alike (src/lib/operation.ts).

export const listReviewsOperation = defineOperation({
  // review.list (MCP) and reviews.search (agents) are its variants below
  name: "review.list-filtered",
  operationId: "listReviews",
  method: "get",
  path: "/v1/reviews",
  tags: ["Reviews"],
  summary: "List reviews, newest first (by publishedAt, else createdAt); filters combine",
  request: { query: ReviewListQuery },
  output: paged(ReviewSchema).openapi("ReviewPage"),
  errors: stdErrors,
  scopes: ["read:reviews"],
  access: "read",
  console: {},
  handler: async (ctx, input) => listReviews(ctx, input),
});

export const ingestReviewsOperation = defineOperation({
  name: "review.ingest",
  operationId: "ingestReviews",
  method: "post",
  path: "/v1/reviews/ingest",
  tags: ["Reviews"],
  summary: "Ingest a review (tenant_user); the same siteType + externalReviewId again updates it",
  description:
    "Sentiment (rating and text, AFINN lexicon), topics (keyword taxonomy) and language (trigram detection) are computed when not given. " +
    "A new review gets an inbox item and the events review.created (and review.negative when negative).",
  request: { body: IngestReviewBody },
  status: 201,
  statuses: { 200: "An existing review updated" },
  output: ReviewSchema,
  errors: stdErrors,
  scopes: [],
  minRole: "tenant_user",
  access: "write",
  idempotent: true,
  handler: async (ctx, input) => {
    const { review, created } = await ingestReview(ctx, input);
    return created ? review : reply(review, { status: 200 });
  },
});

export const syncReviewsOperation = defineOperation({
  // review.sync (MCP, a long job) is its variant below
  name: "review.request-sync",
  operationId: "syncReviews",
  method: "post",
  path: "/v1/reviews/sync",
  tags: ["Reviews"],
  summary: "Queue a sync of every enabled review-site connection (tenant_user)",
  request: { body: SyncReviewsBody },
  output: SyncResultSchema,
  errors: stdErrors,
  scopes: [],
  minRole: "tenant_user",
  access: "write",
  idempotent: true,
  openWorld: true,
  handler: async (ctx, input) => requestSync(ctx, input),
});

export const getReviewOperation = defineOperation({
  // review.get (agents) is its variant below
  name: "review.get-by-id",
  operationId: "getReview",
  method: "get",
  path: "/v1/reviews/{id}",
  tags: ["Reviews"],
  summary: "Get a review",
  request: { params: IdParam },
  output: ReviewSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:reviews"],
  access: "read",
  console: {},
  handler: async (ctx, input) => getReview(ctx, input.id),
});

export const listReviewResponsesOperation = defineOperation({
  name: "response.list-for-review",
  operationId: "listReviewResponses",
  method: "get",
  path: "/v1/reviews/{reviewId}/responses",
  tags: ["Reviews"],
  summary: "A review's responses, oldest first",
  request: { params: ReviewIdParam },
  output: z.array(ReviewResponseSchema),
  errors: stdErrorsWithNotFound,
  scopes: ["read:reviews"],
  access: "read",
  console: {},
  handler: async (ctx, input) => listResponsesForReview(ctx, input.reviewId),
});

export const createReviewResponseOperation = defineOperation({
  name: "response.create",
  operationId: "createReviewResponse",
  method: "post",
  path: "/v1/reviews/{reviewId}/responses",
  tags: ["Reviews"],
  summary: "Draft a response (tenant_user); useAi drafts the text from the review and the brand's voice",
  description:
    "useAi: true replaces the text with a draft (Workers AI when the AI binding is configured, else the built-in deterministic engine) and sets aiGenerated.",
  request: { params: ReviewIdParam, body: CreateResponseBody },
  status: 201,
  statusText: "Created as draft",
  output: ReviewResponseSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_user",
  access: "write",
  console: {},
  handler: async (ctx, { reviewId, ...body }) => createResponse(ctx, reviewId, body),
});

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
      "Records that an approved reply was posted by hand on the review site (sites without a reply API): the reply " +
      "becomes published (publishedVia manual), the review responded. Only once the reply is visible on the site.",
    // the spec's skill: a manual publish only, admitted by write:responses (interface-spec, Authentication 11)
    fixed: { manual: true },
    scopes: ["write:responses"],
    rename: { id: "responseId" },
    describe: { id: "an approved reply's id", externalUrl: "where the posted reply is visible" },
  },
  console: {},
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
      "Reviews without a published reply past an active SLA rule's window, most overdue first, with the rule and when " +
      "the reply was due (sla.dueAt) and escalates. Use it to find late replies.",
    // MCP's structuredContent is an object: { data: [...] } (REST answers the bare array)
    wrap: "data",
    // an MCP answer must fit a model's context (REST: default 50, max 200)
    limit: { default: 25, max: 100 },
  },
  // the optimization agent reads the bare array of the REST route (agents/agents/optimization.ts)
  agent: { scopes: ["read:reviews"] },
  console: {},
  handler: async (ctx, input) => listOverdue(ctx, input),
});

// The reply approval steps, also the buttons of the MCP Apps reply approval card (mcp/apps/cards.ts).
// REST keeps them to signed-in users (identity/scopes.ts); over MCP write:responses admits them, with
// the role checked per call for a user and the user's confirmation asked first (mcp/confirmations.ts).
const transitions = { ...stdErrorsWithNotFound, 409: errors[409] };
const replyId = { id: "from approval.list-pending or inbox.get" };

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
      "Approves a submitted reply so it can be published; text, if given, replaces the reply's. A signed-in user " +
      "needs manager; 409 INVALID_TRANSITION unless the reply is submitted.",
    scopes: ["write:responses"],
    rename: { id: "responseId" },
    describe: replyId,
  },
  console: {},
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
      "Rejects a submitted reply, with an optional reason the writer sees; an edit returns it to draft. A signed-in " +
      "user needs manager.",
    scopes: ["write:responses"],
    rename: { id: "responseId" },
    describe: replyId,
  },
  console: {},
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
      "Replaces the text of a draft or rejected reply (a rejected one returns to draft). A signed-in user needs tenant_user.",
    scopes: ["write:responses"],
    rename: { id: "responseId" },
    omit: ["assignedToUserId"],
    describe: replyId,
  },
  console: {},
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
    "The business's online reviews (first_party: collected here), newest first, with rating, text, author, sentiment " +
    "and status (responded: a reply was published). rating: exact stars; since: published on or after that UTC day.",
  input: z.object({
    locationId: z.string().max(64).optional(),
    siteType: SiteType.optional(),
    rating: z.number().int().min(1).max(5).optional(),
    status: z.enum(REVIEW_STATUSES).optional(),
    since: z.iso.datetime({ offset: true }).optional(),
    limit: z.number().int().min(1).max(200).default(25),
    cursor: z.string().max(512).optional(),
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
    "Review replies submitted for approval and waiting for a manager, oldest first, each with the review it answers. " +
    "Without read:reviews each review is null (reviews: withheld).",
  input: z.object({
    assignedToUserId: z.string().max(64).optional(),
    limit: z.number().int().min(1).max(100).default(25),
  }),
  output: z.object({
    data: z.array(
      ReviewResponseSchema.extend({
        review: AnsweredReviewSchema.nullable(),
      }),
    ),
    total: z.number().int(),
    reviews: z.enum(["shown", "withheld"]),
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
    "Replies auto-reply rules drafted for new reviews, oldest first; scheduled ones publish themselves at publishAt " +
    "unless rejected or cancelled. Use it to see what will go out on its own soon.",
  input: z.object({
    status: z.enum(AUTO_REPLY_STATUSES).optional(),
    reviewId: z.string().max(64).optional(),
    limit: z.number().int().min(1).max(200).default(25),
    cursor: z.string().max(512).optional(),
  }),
  output: paged(AutoReplySchema),
  scopes: ["read:approvals", "read:reviews"],
  access: "read",
  variantOf: {
    operationId: "listAutoReplies",
    why: "page size default 25 (the spec's); derivable from GET /v1/auto-replies with an MCP door",
  },
  mcp: { title: "List automatic review replies" },
  handler: async (ctx, input) => listAutoReplies(ctx, input),
});

export const reviewSyncOperation = defineOperation({
  name: "review.sync",
  summary: "Sync reviews from the review sites",
  description:
    "Fetches new and changed reviews from every enabled review-site connection (or one location's) and answers what " +
    "was queued; with the MCP tasks extension, a task whose result adds each connection's outcome.",
  input: z.object({ locationId: z.string().max(64).optional() }),
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
      .optional(),
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
  listReviewsOperation,
  ingestReviewsOperation,
  syncReviewsOperation,
  getReviewOperation,
  listReviewResponsesOperation,
  createReviewResponseOperation,
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
  ...slaOperations,
  ...autoReplyOperations,
  ...responseOperations,
];
