import { errors, IdParam, PageQuerySchema, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, noContent, type Operation } from "../../lib/operation";
import { ChatStream, chatStream } from "./chat";
import { ChatBody, ConversationDetailSchema, ConversationSchema } from "./schemas";
import { deleteConversation, getConversation, listConversations } from "./service";

// The assistant in the catalogue (src/lib/operation.ts): any role chats; a conversation is its
// author's alone (another person's id is 404). REST only: the answer is an event stream.

const tags = ["Assistant"];

export const chatWithAssistantOperation = defineOperation({
  name: "assistant.chat",
  operationId: "chatWithAssistant",
  method: "post",
  path: "/v1/assistant/chat",
  tags,
  summary: "Ask the assistant (streams Server-Sent Events)",
  description:
    "Streams `text/event-stream`: `conversation` {conversationId, messageId}, then `tool_call` {index, tool, input} and " +
    "`tool_result` {index, tool, ok} per read, `delta` {text} per piece of the answer, and finally `message` (the stored " +
    "AssistantMessage with citations) or `error` {error, code}. Any role may chat; conversations are private to their author.",
  request: { body: ChatBody },
  output: ChatStream,
  errors: { ...stdErrorsWithNotFound, 413: errors[413] },
  scopes: [],
  access: "write",
  handler: async (ctx, input) => chatStream(ctx, input),
});

export const listAssistantConversationsOperation = defineOperation({
  name: "assistant.conversations",
  operationId: "listAssistantConversations",
  method: "get",
  path: "/v1/assistant/conversations",
  tags,
  summary: "Your assistant conversations, most recent first",
  request: { query: PageQuerySchema },
  output: paged(ConversationSchema).openapi("AssistantConversationPage"),
  errors: stdErrors,
  scopes: [],
  access: "read",
  handler: async (ctx, input) => listConversations(ctx, input),
});

export const getAssistantConversationOperation = defineOperation({
  name: "assistant.conversation",
  operationId: "getAssistantConversation",
  method: "get",
  path: "/v1/assistant/conversations/{id}",
  tags,
  summary: "One of your conversations with its messages",
  request: { params: IdParam },
  output: ConversationDetailSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  handler: async (ctx, input) => getConversation(ctx, input.id),
});

export const deleteAssistantConversationOperation = defineOperation({
  name: "assistant.delete-conversation",
  operationId: "deleteAssistantConversation",
  method: "delete",
  path: "/v1/assistant/conversations/{id}",
  tags,
  summary: "Delete one of your conversations",
  request: { params: IdParam },
  status: 204,
  statusText: "Deleted",
  output: noContent,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "write",
  destructive: true,
  handler: async (ctx, input) => {
    await deleteConversation(ctx, input.id);
  },
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  chatWithAssistantOperation,
  listAssistantConversationsOperation,
  getAssistantConversationOperation,
  deleteAssistantConversationOperation,
];
