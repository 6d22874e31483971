import { errors, IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { DeadLetterListQuery, DeadLetterSchema, ReplayedDeadLetterSchema } from "./dead-letters.schemas";
import { listDeadLetters, replayDeadLetter } from "./dead-letters.service";
import { JobSchema } from "./schemas";
import { getJob } from "./service";

// The jobs' operations in the catalogue (src/lib/operation.ts): a tenant's background job, as REST reads
// it, and the platform's dead letters (/admin, platform_admin): queue messages that used up their retries.

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

export const listDeadLettersOperation = defineOperation({
  name: "dead-letter.list",
  context: "platform",
  operationId: "listAdminDeadLetters",
  method: "get",
  path: "/admin/dead-letters",
  tags: ["Admin"],
  summary: "Queue messages that exhausted their retries, newest first, with the count (platform_admin)",
  description:
    "`?queue=sends` shows sends the consumer could not finish (a SENDS body is {solicitationId}). Keyset pages: pass pageInfo.endCursor as cursor.",
  request: { query: DeadLetterListQuery },
  output: paged(DeadLetterSchema).openapi("DeadLetterList"),
  errors: stdErrors,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => listDeadLetters(ctx.control, input),
});

export const replayDeadLetterOperation = defineOperation({
  name: "dead-letter.replay",
  context: "platform",
  operationId: "replayAdminDeadLetter",
  method: "post",
  path: "/admin/dead-letters/{id}/replay",
  tags: ["Admin"],
  summary: "Put a dead letter back on its queue, or redeliver a failed webhook delivery (platform_admin)",
  description:
    "Queue messages go back unchanged (every consumer is idempotent under redelivery). A webhook delivery that used up its " +
    "schedule is redelivered with the same webhook-id and a fresh schedule (409 while the endpoint is disabled). The dead " +
    "letter is removed and the replay audited; a replay that fails again becomes a new dead letter.",
  request: { params: IdParam },
  status: 202,
  output: ReplayedDeadLetterSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: [],
  access: "write",
  console: {},
  handler: async (ctx, input) => replayDeadLetter(ctx, input.id),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [getJobOperation, listDeadLettersOperation, replayDeadLetterOperation];
