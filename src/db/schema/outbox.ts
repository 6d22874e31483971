import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";

export const MESSAGE_CHANNELS = ["email", "sms", "whatsapp"] as const;
export type MessageChannel = (typeof MESSAGE_CHANNELS)[number];

/** The built-in `outbox` provider: messages stored, never sent (dev, tests, no credentials). */
export const outboxMessages = sqliteTable(
  "outbox_messages",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id"),
    channel: text("channel", { enum: MESSAGE_CHANNELS }).notNull(),
    to: text("to").notNull(),
    subject: text("subject"),
    html: text("html"),
    text: text("text"),
    headers: text("headers", { mode: "json" }).$type<Record<string, string>>().notNull().default({}),
    solicitationId: text("solicitation_id"),
    createdAt: createdAt(),
  },
  (t) => [
    index("outbox_created_idx").on(t.createdAt, t.id),
    index("outbox_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("outbox_solicitation_idx").on(t.solicitationId),
  ],
);
