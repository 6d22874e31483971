import { createRoute, z } from "@hono/zod-openapi";
import { MESSAGE_CHANNELS } from "../../db/schema";
import { createRouter, DateTime, json, stdErrors, USER_SECURITY } from "../../lib/openapi";
import { listOutboxMessages } from "./service";

const OutboxMessageSchema = z
  .object({
    id: z.string(),
    tenantId: z.string().nullable(),
    channel: z.enum(MESSAGE_CHANNELS),
    to: z.string(),
    subject: z.string().nullable(),
    html: z.string().nullable(),
    text: z.string().nullable(),
    headers: z.record(z.string(), z.string()),
    solicitationId: z.string().nullable(),
    createdAt: DateTime,
  })
  .openapi("OutboxMessage");

const list = createRoute({
  method: "get",
  path: "/admin/outbox", operationId: "listAdminOutboxMessages",
  tags: ["Admin"],
  security: USER_SECURITY,
  summary: "Messages stored by the built-in outbox provider, newest first (platform_admin)",
  request: {
    query: z.object({
      limit: z.coerce.number().int().min(1).max(200).default(50),
      tenantId: z.string().optional(),
    }),
  },
  responses: { 200: json(z.object({ data: z.array(OutboxMessageSchema) }).openapi("OutboxList")), ...stdErrors },
});

export const outboxRoutes = createRouter().openapi(list, async (c) => c.json({ data: await listOutboxMessages(c.env, c.req.valid("query")) }, 200));
