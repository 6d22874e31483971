import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, DateTime, json, stdErrors, USER_SECURITY } from "../../lib/openapi";
import { listDeadLetters } from "./admin.service";

const DeadLetterSchema = z
  .object({ id: z.string(), queue: z.string(), messageId: z.string(), body: z.unknown(), attempts: z.number().int(), createdAt: DateTime })
  .openapi("DeadLetter");

const list = createRoute({
  method: "get", path: "/admin/dead-letters", tags: ["Admin"], security: USER_SECURITY,
  operationId: "listAdminDeadLetters",
  summary: "Queue messages that exhausted their retries, newest first, with the count (platform_admin)",
  description: "`?queue=sends` shows sends the consumer could not finish (a SENDS body is {solicitationId}).",
  request: { query: z.object({ queue: z.string().max(64).optional(), limit: z.coerce.number().int().min(1).max(200).default(50) }) },
  responses: { 200: json(z.object({ data: z.array(DeadLetterSchema), total: z.number().int() }).openapi("DeadLetterList")), ...stdErrors },
});

export const sendingAdminRoutes = createRouter().openapi(list, async (c) =>
  c.json(await listDeadLetters(c.var.control, c.req.valid("query")), 200),
);
