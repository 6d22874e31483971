import { createRoute, z } from "@hono/zod-openapi";
import {
  createRouter,
  errors,
  IdParam,
  json,
  jsonBody,
  type Router,
  stdErrors,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canWrite } from "../../middleware/tenant";
import { CreateResponseBody, QueueQuery, ReviewIdParam, ReviewResponseSchema } from "./responses.schemas";
import { createResponse, listApprovalQueue, listResponsesForReview, submitResponse } from "./responses.service";

const tags = ["Reviews"];
const Responses = z.array(ReviewResponseSchema);
const withTransitions = { ...stdErrorsWithNotFound, 409: errors[409] };

const listForReview = createRoute({
  method: "get",
  path: "/v1/reviews/{reviewId}/responses",
  tags,
  security: TENANT_SECURITY,
  summary: "A review's responses, oldest first",
  operationId: "listReviewResponses",
  request: { params: ReviewIdParam },
  responses: { 200: json(Responses), ...stdErrorsWithNotFound },
});

const create = createRoute({
  method: "post",
  path: "/v1/reviews/{reviewId}/responses",
  tags,
  security: TENANT_SECURITY,
  operationId: "createReviewResponse",
  summary: "Draft a response (tenant_user); useAi drafts the text from the review and the brand's voice",
  description:
    "useAi: true replaces the text with a draft (Workers AI when the AI binding is configured, else the built-in deterministic engine) and sets aiGenerated.",
  middleware: [canWrite] as const,
  request: { params: ReviewIdParam, body: jsonBody(CreateResponseBody) },
  responses: { 201: json(ReviewResponseSchema, "Created as draft"), ...stdErrorsWithNotFound },
});

const queue = createRoute({
  method: "get",
  path: "/v1/responses/approval-queue",
  tags,
  security: TENANT_SECURITY,
  summary: "Submitted responses awaiting approval, oldest first",
  operationId: "listResponseApprovalQueue",
  request: { query: QueueQuery },
  responses: { 200: json(Responses), ...stdErrors },
});

const move = (operationId: string, path: string, summary: string, middleware: typeof canWrite) =>
  createRoute({
    method: "post",
    path,
    operationId,
    tags,
    security: TENANT_SECURITY,
    summary,
    middleware: [middleware] as const,
    request: { params: IdParam },
    responses: { 200: json(ReviewResponseSchema), ...withTransitions },
  });

const submit = move(
  "submitResponse",
  "/v1/responses/{id}/submit",
  "Submit a draft for approval (tenant_user)",
  canWrite,
);
export const responseRoutes: Router = createRouter()
  .openapi(listForReview, async (c) => c.json(await listResponsesForReview(svc(c), c.req.valid("param").reviewId), 200))
  .openapi(create, async (c) =>
    c.json(await createResponse(svc(c), c.req.valid("param").reviewId, c.req.valid("json")), 201),
  )
  .openapi(queue, async (c) => c.json(await listApprovalQueue(svc(c), c.req.valid("query")), 200))
  .openapi(submit, async (c) => c.json(await submitResponse(svc(c), c.req.valid("param").id), 200));
