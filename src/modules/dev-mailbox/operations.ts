import { z } from "@hono/zod-openapi";
import { MESSAGE_CHANNELS } from "../../db/schema";
import { DateTime, stdErrors } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
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

// The dev mailbox in the catalogue (platform_admin). The path keeps its historic name /admin/outbox
// (decisions.md names it; external clients call it).
export const listAdminOutboxMessagesOperation = defineOperation({
  name: "platform.list-outbox-messages",
  context: "platform",
  operationId: "listAdminOutboxMessages",
  method: "get",
  path: "/admin/outbox",
  tags: ["Admin"],
  summary:
    "The dev mailbox: messages the built-in `outbox` provider stored instead of sending, newest first (platform_admin)",
  request: {
    query: z.object({
      limit: z.coerce.number().int().min(1).max(200).default(50),
      tenantId: z.string().optional(),
    }),
  },
  output: z.object({ data: z.array(MailboxMessageSchema) }).openapi("DevMailboxMessageList"),
  errors: stdErrors,
  scopes: [],
  access: "read",
  handler: async (ctx, input) => ({ data: await listMailboxMessages(ctx.env, input) }),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [listAdminOutboxMessagesOperation];
