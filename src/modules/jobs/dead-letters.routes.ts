import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, errors, IdParam, json, stdErrorsWithNotFound, USER_SECURITY } from "../../lib/openapi";
import { platformSvc } from "../../middleware/service-context";
import { replayDeadLetter } from "./dead-letters.service";

const ReplayedSchema = z
  .object({
    id: z.string(),
    queue: z.string(),
    messageId: z.string(),
    replayedTo: z.string().openapi({ description: "the queue the message went back to" }),
    deliveryId: z.string().nullable().openapi({ description: "the new webhook delivery, when a failed webhook delivery was replayed" }),
  })
  .openapi("ReplayedDeadLetter");

const replay = createRoute({
  method: "post", path: "/admin/dead-letters/{id}/replay", tags: ["Admin"], security: USER_SECURITY,
  operationId: "replayAdminDeadLetter",
  summary: "Put a dead letter back on its queue, or redeliver a failed webhook delivery (platform_admin)",
  description:
    "Queue messages go back unchanged (every consumer is idempotent under redelivery). A webhook delivery that used up its " +
    "schedule is redelivered with the same webhook-id and a fresh schedule (409 while the endpoint is disabled). The dead " +
    "letter is removed and the replay audited; a replay that fails again becomes a new dead letter.",
  request: { params: IdParam },
  responses: { 202: json(ReplayedSchema), ...stdErrorsWithNotFound, 409: errors[409] },
});

export const deadLetterRoutes = createRouter().openapi(replay, async (c) => c.json(await replayDeadLetter(platformSvc(c), c.req.valid("param").id), 202));
