import { and, asc, count, eq } from "drizzle-orm";
import { assistantConversations as conv, assistantMessages as msg } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { Actor, ServiceContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { nowIso } from "../../lib/time";
import { assertWithinTokenCap } from "../../providers/llm/tokens";
import { engineOf } from "../agents/runtime";
import { conversationMessages } from "./prompt";
import { type ConversationRow, type MessageRow, toConversation, toMessage } from "./schemas";

/** Conversations are private to the caller who started them: a user, or an API key. */
export const ownerRef = (a: Actor) =>
  a.type === "user" ? a.userId : a.type === "api_key" ? `api_key:${a.keyId}` : `system:${a.name}`;

const owned = (ctx: ServiceContext, id: string) =>
  and(eq(conv.id, id), eq(conv.tenantId, ctx.tenantId), eq(conv.ownerRef, ownerRef(ctx.actor)));

export async function findConversationRow(ctx: ServiceContext, id: string): Promise<ConversationRow> {
  const row = await ctx.db.select().from(conv).where(owned(ctx, id)).get();
  if (!row) throw notFound("Conversation");
  return row;
}

export async function listConversations(ctx: ServiceContext, q: PageQuery) {
  const where = and(eq(conv.tenantId, ctx.tenantId), eq(conv.ownerRef, ownerRef(ctx.actor)));
  return keysetPage(ctx.db, {
    query: q,
    sort: [conv.updatedAt, conv.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(conv)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(conv).where(where),
    key: (r) => [r.updatedAt, r.id],
    map: toConversation,
  });
}

export async function messagesOf(ctx: ServiceContext, conversationId: string): Promise<MessageRow[]> {
  return ctx.db
    .select()
    .from(msg)
    .where(and(eq(msg.tenantId, ctx.tenantId), eq(msg.conversationId, conversationId)))
    .orderBy(asc(msg.createdAt), asc(msg.id));
}

export async function getConversation(ctx: ServiceContext, id: string) {
  const row = await findConversationRow(ctx, id);
  return { ...toConversation(row), messages: (await messagesOf(ctx, id)).map(toMessage) };
}

export async function deleteConversation(ctx: ServiceContext, id: string) {
  const row = await findConversationRow(ctx, id);
  await commit(ctx, [
    ctx.db.delete(msg).where(and(eq(msg.tenantId, ctx.tenantId), eq(msg.conversationId, id))),
    ctx.db.delete(conv).where(owned(ctx, id)),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "assistant.conversation_deleted",
      resourceType: "assistant_conversation",
      resourceId: id,
      previousState: toConversation(row),
    }),
  ]);
}

/** Checks before the stream opens (so they are plain JSON errors): the conversation is the caller's, the message within the token cap. */
export async function prepareChat(ctx: ServiceContext, input: { conversationId?: string; message: string }) {
  const conversation = input.conversationId ? await findConversationRow(ctx, input.conversationId) : null;
  const tokens = await assertWithinTokenCap(input.message);
  const history = conversation ? await messagesOf(ctx, conversation.id) : [];
  // the llm engine sends the recent history too: what the model would be refused is a 413 before the stream
  if (engineOf(ctx) === "llm") await assertWithinTokenCap(JSON.stringify(conversationMessages(history, input.message)));
  return { conversation, message: input.message, tokens, history };
}
export type PreparedChat = Awaited<ReturnType<typeof prepareChat>>;

/** Stores one exchange (and the conversation when new) with its audit row, in one batch. */
export async function saveExchange(
  ctx: ServiceContext,
  chat: PreparedChat,
  ids: { conversationId: string; userMessageId: string; assistantMessageId: string },
  answer: { content: string; citations: MessageRow["citations"]; engine: string },
) {
  const now = nowIso();
  const later = new Date(Date.parse(now) + 1).toISOString();
  const user: MessageRow = {
    id: ids.userMessageId,
    tenantId: ctx.tenantId,
    conversationId: ids.conversationId,
    role: "user",
    content: chat.message,
    citations: [],
    engine: null,
    createdAt: now,
  };
  const assistant: MessageRow = {
    id: ids.assistantMessageId,
    tenantId: ctx.tenantId,
    conversationId: ids.conversationId,
    role: "assistant",
    content: answer.content,
    citations: answer.citations,
    engine: answer.engine,
    createdAt: later,
  };
  const title = chat.message.length > 80 ? `${chat.message.slice(0, 79)}…` : chat.message;
  await commit(ctx, [
    chat.conversation
      ? ctx.db.update(conv).set({ updatedAt: later }).where(owned(ctx, ids.conversationId))
      : ctx.db.insert(conv).values({
          id: ids.conversationId,
          tenantId: ctx.tenantId,
          ownerRef: ownerRef(ctx.actor),
          title,
          createdAt: now,
          updatedAt: later,
        }),
    ctx.db.insert(msg).values([user, assistant]),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: chat.conversation ? "assistant.message_added" : "assistant.conversation_created",
      resourceType: "assistant_conversation",
      resourceId: ids.conversationId,
      metadata: {
        engine: answer.engine,
        inputTokens: chat.tokens,
        citations: answer.citations.map((c) => c.tool),
        assistantMessageId: ids.assistantMessageId,
      },
    }),
  ]);
  return toMessage(assistant);
}

export const newExchangeIds = (chat: PreparedChat) => ({
  conversationId: chat.conversation?.id ?? newId(),
  userMessageId: newId(),
  assistantMessageId: newId(),
});
