import { createRoute, z } from "@hono/zod-openapi";
import { and, desc, eq } from "drizzle-orm";
import { outboxMessages, MESSAGE_CHANNELS } from "../../db/schema";
import { createRouter, DateTime, json, stdErrors, USER_SECURITY } from "../../lib/openapi";

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
  path: "/admin/outbox",
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

export const outboxRoutes = createRouter().openapi(list, async (c) => {
  const { limit, tenantId } = c.req.valid("query");
  const data = await c.var.db
    .select()
    .from(outboxMessages)
    .where(and(tenantId ? eq(outboxMessages.tenantId, tenantId) : undefined))
    .orderBy(desc(outboxMessages.createdAt), desc(outboxMessages.id))
    .limit(limit);
  return c.json({ data }, 200);
});
