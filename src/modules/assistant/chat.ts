import { SSEStreamingApi } from "hono/streaming";
import { ApiError } from "../../lib/errors";
import { log } from "../../lib/log";
import { type FileAnswer, fileOutput, type OperationContext } from "../../lib/operation";
import { AGENT_TIMEOUT_MS } from "../agents/runtime";
import { callerScopes } from "../agents/tools";
import { generateAnswer } from "./generate";
import { newExchangeIds, prepareChat, saveExchange } from "./service";

/** POST /v1/assistant/chat answers Server-Sent Events (never cached). */
export const ChatStream = fileOutput({
  mediaType: "text/event-stream",
  description: "SSE stream",
  headers: { "cache-control": "no-cache" },
});

/**
 * One chat exchange as an event stream: `conversation` first, then the answer's tool_call, tool_result
 * and delta events, and `message` (the stored answer) or `error` last. The conversation is checked
 * before the stream starts (a 404 or 413 is a JSON error); after that every failure is an `error` event.
 */
export async function chatStream(
  ctx: OperationContext,
  input: { conversationId?: string; message: string },
): Promise<FileAnswer> {
  const prepared = await prepareChat(ctx, input);
  const ids = newExchangeIds(prepared);
  const timeoutMs = Number(ctx.env.AGENT_TIMEOUT_MS) || AGENT_TIMEOUT_MS;
  const { readable, writable } = new TransformStream();
  const stream = new SSEStreamingApi(writable, readable);
  let seq = 0;
  const emit = (event: string, data: unknown) =>
    stream.writeSSE({ event, data: JSON.stringify(data), id: String(++seq) });
  const exchange = async () => {
    await emit("conversation", { conversationId: ids.conversationId, messageId: ids.assistantMessageId });
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const answer = await Promise.race([
        generateAnswer(ctx, callerScopes(ctx.scopes), prepared, emit),
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
  };
  // written while the client reads (as hono's streamSSE does); a client gone mid-stream ends it
  exchange()
    .catch((e) => log.warn("assistant chat stream ended early", { error: String(e) }))
    .finally(() => stream.close());
  return { body: stream.responseReadable };
}
