import { z } from "@hono/zod-openapi";
import { ErrorResponseSchema, errors, IdParam, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation } from "../../lib/operation";
import { publishResponse } from "./publish";
import {
  ApproveResponseBody,
  OverdueReviewSchema,
  PublishResponseBody,
  QueueQuery,
  RejectResponseBody,
  ReviewResponseSchema,
  UpdateResponseBody,
} from "./responses.schemas";
import { approveResponse, rejectResponse, updateResponse } from "./responses.service";
import { listOverdue } from "./sla.service";

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
