import { z } from "@hono/zod-openapi";
import { errors, IdParam, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { QueueQuery, ReviewResponseSchema } from "./responses.schemas";
import { listApprovalQueue, submitResponse } from "./responses.service";

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
  request: { query: QueueQuery },
  output: z.array(ReviewResponseSchema),
  errors: stdErrors,
  scopes: ["read:approvals", "read:reviews"],
  access: "read",
  handler: async (ctx, input) => listApprovalQueue(ctx, input),
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
