import { createRoute, z } from "@hono/zod-openapi";
import { MESSAGE_CHANNELS } from "../../db/schema";
import { createRouter, DateTime, json, type Router, stdErrors, USER_SECURITY } from "../../lib/openapi";
import { listMailboxMessages } from "./service";

const MailboxMessageSchema = z
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
  .openapi("DevMailboxMessage");

// The path keeps its historic name /admin/outbox (decisions.md names it; external clients call it).
const list = createRoute({
  method: "get",
  path: "/admin/outbox",
  operationId: "listAdminOutboxMessages",
  tags: ["Admin"],
  security: USER_SECURITY,
  summary:
    "The dev mailbox: messages the built-in `outbox` provider stored instead of sending, newest first (platform_admin)",
  request: {
    query: z.object({
      limit: z.coerce.number().int().min(1).max(200).default(50),
      tenantId: z.string().optional(),
    }),
  },
  responses: {
    200: json(z.object({ data: z.array(MailboxMessageSchema) }).openapi("DevMailboxMessageList")),
    ...stdErrors,
  },
});

export const devMailboxRoutes: Router = createRouter().openapi(list, async (c) =>
  c.json({ data: await listMailboxMessages(c.env, c.req.valid("query")) }, 200),
);
