import { createRoute, z } from "@hono/zod-openapi";
import {
  createRouter,
  errors,
  IdParam,
  json,
  type Router,
  stdErrors,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canWrite } from "../../middleware/tenant";
import { QueueQuery, ReviewResponseSchema } from "./responses.schemas";
import { listApprovalQueue, submitResponse } from "./responses.service";

const tags = ["Reviews"];
const Responses = z.array(ReviewResponseSchema);
const withTransitions = { ...stdErrorsWithNotFound, 409: errors[409] };

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
  .openapi(queue, async (c) => c.json(await listApprovalQueue(svc(c), c.req.valid("query")), 200))
  .openapi(submit, async (c) => c.json(await submitResponse(svc(c), c.req.valid("param").id), 200));
