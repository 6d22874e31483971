import { z } from "@hono/zod-openapi";
import type { assistantConversations, assistantMessages } from "../../db/schema";
import { DateTime } from "../../lib/openapi";
import { CitationSchema } from "../agents/agents/operator-copilot";

export const ChatBody = z
  .object({
    conversationId: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .openapi({ description: "continue this conversation (yours); omit to start one" }),
    message: z
      .string()
      .trim()
      .min(1)
      .max(1_000_000)
      .openapi({ description: "the question; over 200,000 tokens is 413 PAYLOAD_TOO_LARGE" }),
  })
  .openapi("AssistantChatRequest");

export const MessageSchema = z
  .object({
    id: z.string(),
    conversationId: z.string(),
    role: z.enum(["user", "assistant"]),
    content: z.string(),
    citations: z.array(CitationSchema),
    engine: z.string().nullable().openapi({ description: "llm or rules (assistant messages)" }),
    createdAt: DateTime,
  })
  .openapi("AssistantMessage");

export const ConversationSchema = z
  .object({ id: z.string(), title: z.string(), createdAt: DateTime, updatedAt: DateTime })
  .openapi("AssistantConversation");

export const ConversationDetailSchema = ConversationSchema.extend({ messages: z.array(MessageSchema) }).openapi(
  "AssistantConversationDetail",
);

export type ConversationRow = typeof assistantConversations.$inferSelect;
export type MessageRow = typeof assistantMessages.$inferSelect;

export const toConversation = (r: ConversationRow) => ({
  id: r.id,
  title: r.title,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});
export const toMessage = (m: MessageRow) => ({
  id: m.id,
  conversationId: m.conversationId,
  role: m.role,
  content: m.content,
  citations: m.citations,
  engine: m.engine,
  createdAt: m.createdAt,
});
