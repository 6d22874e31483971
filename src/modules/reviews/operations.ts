import { z } from "@hono/zod-openapi";
import { ErrorResponseSchema, errors, IdParam, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation } from "../../lib/operation";
import { publishResponse } from "./publish";
import { OverdueReviewSchema, PublishResponseBody, QueueQuery, ReviewResponseSchema } from "./responses.schemas";
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
  agent: { scopes: ["read:reviews"] },
  handler: async (ctx, input) => listOverdue(ctx, input),
});
