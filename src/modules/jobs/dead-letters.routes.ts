import { createRoute, z } from "@hono/zod-openapi";
import {
  createRouter,
  errors,
  IdParam,
  json,
  paged,
  type Router,
  stdErrors,
  stdErrorsWithNotFound,
  USER_SECURITY,
} from "../../lib/openapi";
import { platformSvc } from "../../middleware/service-context";
import { DeadLetterListQuery, DeadLetterSchema } from "./dead-letters.schemas";
import { listDeadLetters, replayDeadLetter } from "./dead-letters.service";

const list = createRoute({
  method: "get",
  path: "/admin/dead-letters",
  tags: ["Admin"],
  security: USER_SECURITY,
  operationId: "listAdminDeadLetters",
  summary: "Queue messages that exhausted their retries, newest first, with the count (platform_admin)",
  description:
    "`?queue=sends` shows sends the consumer could not finish (a SENDS body is {solicitationId}). Keyset pages: pass pageInfo.endCursor as cursor.",
  request: { query: DeadLetterListQuery },
  responses: { 200: json(paged(DeadLetterSchema).openapi("DeadLetterList")), ...stdErrors },
});

const ReplayedSchema = z
  .object({
    id: z.string(),
    queue: z.string(),
    messageId: z.string(),
    replayedTo: z.string().openapi({ description: "the queue the message went back to" }),
    deliveryId: z
      .string()
      .nullable()
      .openapi({ description: "the new webhook delivery, when a failed webhook delivery was replayed" }),
  })
  .openapi("ReplayedDeadLetter");

const replay = createRoute({
  method: "post",
  path: "/admin/dead-letters/{id}/replay",
  tags: ["Admin"],
  security: USER_SECURITY,
  operationId: "replayAdminDeadLetter",
  summary: "Put a dead letter back on its queue, or redeliver a failed webhook delivery (platform_admin)",
  description:
    "Queue messages go back unchanged (every consumer is idempotent under redelivery). A webhook delivery that used up its " +
    "schedule is redelivered with the same webhook-id and a fresh schedule (409 while the endpoint is disabled). The dead " +
    "letter is removed and the replay audited; a replay that fails again becomes a new dead letter.",
  request: { params: IdParam },
  responses: { 202: json(ReplayedSchema), ...stdErrorsWithNotFound, 409: errors[409] },
});

export const deadLetterRoutes: Router = createRouter()
  .openapi(list, async (c) => c.json(await listDeadLetters(c.var.control, c.req.valid("query")), 200))
  .openapi(replay, async (c) => c.json(await replayDeadLetter(platformSvc(c), c.req.valid("param").id), 202));
