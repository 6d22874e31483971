import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, updatedAt } from "./columns";
import { tenants } from "./tenancy";

export const ASSISTANT_ROLES = ["user", "assistant"] as const;

/** A chat with the assistant; it belongs to the caller who started it (ownerRef: user id or api_key:<id>). */
export const assistantConversations = sqliteTable(
  "assistant_conversations",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    ownerRef: text("owner_ref").notNull(),
    title: text("title").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("assistant_conversations_owner_updated_idx").on(t.tenantId, t.ownerRef, t.updatedAt, t.id)],
);

export interface AssistantCitation {
  index: number;
  tool: string;
  input: Record<string, unknown>;
  ids: string[];
}

export const assistantMessages = sqliteTable(
  "assistant_messages",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    conversationId: text("conversation_id")
      .notNull()
      .references(() => assistantConversations.id),
    role: text("role", { enum: ASSISTANT_ROLES }).notNull(),
    content: text("content").notNull(),
    citations: text("citations", { mode: "json" }).$type<AssistantCitation[]>().notNull().default([]),
    engine: text("engine"),
    createdAt: createdAt(),
  },
  (t) => [
    index("assistant_messages_conversation_idx").on(t.conversationId, t.createdAt, t.id),
    index("assistant_messages_tenant_idx").on(t.tenantId),
  ],
);
