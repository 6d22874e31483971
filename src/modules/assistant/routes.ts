import { createRoute, z } from "@hono/zod-openapi";
import { streamSSE } from "hono/streaming";
import { ApiError } from "../../lib/errors";
import { log } from "../../lib/log";
import {
  createRouter,
  errors,
  IdParam,
  json,
  jsonBody,
  PageQuerySchema,
  paged,
  type Router,
  stdErrors,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { AGENT_TIMEOUT_MS } from "../agents/runtime";
import { callerScopes } from "../agents/tools";
import { generateAnswer } from "./generate";
import { ChatBody, ConversationDetailSchema, ConversationSchema } from "./schemas";
import {
  deleteConversation,
  getConversation,
  listConversations,
  newExchangeIds,
  prepareChat,
  saveExchange,
} from "./service";

const tags = ["Assistant"];

const chat = createRoute({
  method: "post",
  path: "/v1/assistant/chat",
  tags,
  security: TENANT_SECURITY,
  summary: "Ask the assistant (streams Server-Sent Events)",
  operationId: "chatWithAssistant",
  description:
    "Streams `text/event-stream`: `conversation` {conversationId, messageId}, then `tool_call` {index, tool, input} and " +
    "`tool_result` {index, tool, ok} per read, `delta` {text} per piece of the answer, and finally `message` (the stored " +
    "AssistantMessage with citations) or `error` {error, code}. Any role may chat; conversations are private to their author.",
  request: { body: jsonBody(ChatBody) },
  responses: {
    200: { description: "SSE stream", content: { "text/event-stream": { schema: z.string() } } },
    ...stdErrorsWithNotFound,
    413: errors[413],
  },
});

const list = createRoute({
  method: "get",
  path: "/v1/assistant/conversations",
  tags,
  security: TENANT_SECURITY,
  summary: "Your assistant conversations, most recent first",
  operationId: "listAssistantConversations",
  request: { query: PageQuerySchema },
  responses: { 200: json(paged(ConversationSchema).openapi("AssistantConversationPage")), ...stdErrors },
});

const get = createRoute({
  method: "get",
  path: "/v1/assistant/conversations/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "One of your conversations with its messages",
  operationId: "getAssistantConversation",
  request: { params: IdParam },
  responses: { 200: json(ConversationDetailSchema), ...stdErrorsWithNotFound },
});

const remove = createRoute({
  method: "delete",
  path: "/v1/assistant/conversations/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Delete one of your conversations",
  operationId: "deleteAssistantConversation",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...stdErrorsWithNotFound },
});

export const assistantRoutes: Router = createRouter()
  .openapi(chat, async (c) => {
    const ctx = svc(c);
    const prepared = await prepareChat(ctx, c.req.valid("json"));
    const ids = newExchangeIds(prepared);
    const timeoutMs = Number(ctx.env.AGENT_TIMEOUT_MS) || AGENT_TIMEOUT_MS;
    return streamSSE(c, async (stream) => {
      let seq = 0;
      const emit = (event: string, data: unknown) =>
        stream.writeSSE({ event, data: JSON.stringify(data), id: String(++seq) });
      await emit("conversation", { conversationId: ids.conversationId, messageId: ids.assistantMessageId });
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        const answer = await Promise.race([
          generateAnswer(ctx, callerScopes(c.var.principal), prepared, emit),
          new Promise<never>(
            (_, reject) =>
              (timer = setTimeout(
                () => reject(new ApiError("TIMEOUT", `The assistant did not finish within ${timeoutMs / 1000} s`)),
                timeoutMs,
              )),
          ),
        ]);
        await emit("message", await saveExchange(ctx, prepared, ids, answer));
      } catch (e) {
        const err = e instanceof ApiError ? e : new ApiError("INTERNAL", "The assistant failed");
        if (!(e instanceof ApiError)) log.error("assistant chat failed", { error: String(e) });
        await emit("error", { error: err.message, code: err.code });
      } finally {
        clearTimeout(timer);
      }
    }) as never;
  })
  .openapi(list, async (c) => c.json(await listConversations(svc(c), c.req.valid("query")), 200))
  .openapi(get, async (c) => c.json(await getConversation(svc(c), c.req.valid("param").id), 200))
  .openapi(remove, async (c) => {
    await deleteConversation(svc(c), c.req.valid("param").id);
    return c.body(null, 204);
  });
