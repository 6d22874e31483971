import { z } from "@hono/zod-openapi";
import { errors, IdParam, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, holdsScope, type Operation } from "../../lib/operation";
import { AnsweredReviewSchema, QueueQuery, ReviewResponseSchema } from "./responses.schemas";
import { listApprovalQueue, listApprovalQueueWithReviews, submitResponse } from "./responses.service";

// Review responses under /v1/responses in the catalogue (src/lib/operation.ts): the approval queue and
// a draft's submission (approve, reject and update: ./operations.ts). The MCP tool approval.list-pending
// is a variant of the queue (./operations.ts).

const tags = ["Reviews"];

export const listResponseApprovalQueueOperation = defineOperation({
  name: "response.approval-queue",
  operationId: "listResponseApprovalQueue",
  method: "get",
  path: "/v1/responses/approval-queue",
  tags,
  summary: "Submitted responses awaiting approval, oldest first",
  description:
    "The replies in one state of the approval flow (status; submitted by default), oldest first. With include=review each " +
    "carries the review it answers (null for an API key without read:reviews).",
  request: { query: QueueQuery },
  output: z.array(
    ReviewResponseSchema.extend({ review: AnsweredReviewSchema.nullable().optional() }).openapi("QueuedReviewResponse"),
  ),
  errors: stdErrors,
  scopes: ["read:approvals", "read:reviews"],
  access: "read",
  console: {},
  handler: async (ctx, { include, ...query }) => {
    if (include !== "review") return listApprovalQueue(ctx, query);
    // review content belongs to read:reviews (interface spec, Authentication 11), as approval.list-pending's
    if (!holdsScope(ctx, "read:reviews"))
      return (await listApprovalQueue(ctx, query)).map((r) => ({ ...r, review: null }));
    return listApprovalQueueWithReviews(ctx, query);
  },
});

export const submitResponseOperation = defineOperation({
  name: "response.submit",
  operationId: "submitResponse",
  method: "post",
  path: "/v1/responses/{id}/submit",
  tags,
  summary: "Submit a draft for approval (tenant_user)",
  request: { params: IdParam },
  output: ReviewResponseSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: [],
  minRole: "tenant_user",
  access: "write",
  console: {},
  handler: async (ctx, input) => submitResponse(ctx, input.id),
});

/** The responses' operations, spread into the module's list (./operations.ts). */
export const responseOperations: Operation[] = [listResponseApprovalQueueOperation, submitResponseOperation];
