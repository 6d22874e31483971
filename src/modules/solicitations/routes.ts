import { createRoute } from "@hono/zod-openapi";
import {
  createRouter,
  errors,
  IdParam,
  json,
  jsonBody,
  type Router,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canWrite } from "../../middleware/tenant";
import { CreateSolicitationBody, IdempotencyKeyHeader, SolicitationSchema } from "./schemas";
import { createSolicitation, getSolicitation } from "./service";

const tags = ["Solicitations"];

const create = createRoute({
  method: "post",
  path: "/v1/solicitations",
  operationId: "createSolicitation",
  tags,
  security: TENANT_SECURITY,
  summary: "Request a review from one contact (tenant_user); delivered off the request path",
  description:
    "Requires `Idempotency-Key` (400 IDEMPOTENCY_KEY_REQUIRED without it). The same key with the same body within 24 hours " +
    "replays the first response (header `Idempotent-Replayed: true`) and creates nothing; with another body it is 422 " +
    "IDEMPOTENCY_KEY_REUSED; while the first request is still running a duplicate waits for its answer (up to 10 s, then 409 CONFLICT). " +
    "Frequency caps hold under any concurrency (checked again in the batch that writes the send). A send the policy blocks is still " +
    "created, with status BLOCKED and blockedReason, and answered 201.",
  middleware: [canWrite] as const,
  request: { headers: IdempotencyKeyHeader, body: jsonBody(CreateSolicitationBody) },
  responses: {
    201: json(SolicitationSchema, "Created (PENDING, or BLOCKED by policy)"),
    ...stdErrorsWithNotFound,
    409: errors[409],
    422: errors[422],
  },
});

const get = createRoute({
  method: "get",
  path: "/v1/solicitations/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Get a solicitation",
  operationId: "getSolicitation",
  request: { params: IdParam },
  responses: { 200: json(SolicitationSchema), ...stdErrorsWithNotFound },
});

export const solicitationRoutes: Router = createRouter()
  .openapi(create, async (c) => {
    const result = await createSolicitation(svc(c), c.req.valid("header")["idempotency-key"], c.req.valid("json"));
    if (result.replayed) c.header("Idempotent-Replayed", "true");
    return c.json(result.body, result.status);
  })
  .openapi(get, async (c) => c.json(await getSolicitation(svc(c), c.req.valid("param").id), 200));
