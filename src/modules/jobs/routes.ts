import { createRoute } from "@hono/zod-openapi";
import { createRouter, IdParam, json, type Router, stdErrorsWithNotFound, TENANT_SECURITY } from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { JobSchema } from "./schemas";
import { getJob } from "./service";

const get = createRoute({
  method: "get",
  path: "/v1/jobs/{id}",
  operationId: "getJob",
  tags: ["Jobs"],
  security: TENANT_SECURITY,
  summary: "Status of a background job (queued, running, succeeded, failed, cancelled) with its counts and error",
  request: { params: IdParam },
  responses: { 200: json(JobSchema), ...stdErrorsWithNotFound },
});

export const jobRoutes: Router = createRouter().openapi(get, async (c) =>
  c.json(await getJob(svc(c), c.req.valid("param").id), 200),
);
