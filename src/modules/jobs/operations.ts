import { IdParam, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { JobSchema } from "./schemas";
import { getJob } from "./service";

// The jobs' operations in the catalogue (src/lib/operation.ts): a tenant's background job, as REST reads it.

export const getJobOperation = defineOperation({
  name: "job.get",
  operationId: "getJob",
  method: "get",
  path: "/v1/jobs/{id}",
  tags: ["Jobs"],
  summary: "Status of a background job (queued, running, succeeded, failed, cancelled) with its counts and error",
  request: { params: IdParam },
  output: JobSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  handler: async (ctx, input) => getJob(ctx, input.id),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [getJobOperation];
