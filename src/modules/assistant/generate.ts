import type { ServiceContext } from "../../lib/context";
import { ApiError } from "../../lib/errors";
import { runToolLoop, sendWithinCap } from "../../providers/llm/tool-loop";
import { type AiRunner, type Message, streamedText } from "../../providers/llm/workers-ai";
import { COPILOT_PROMPT } from "../agents/agents/operator-copilot";
import { answerByIntents, type Citation, COPILOT_TOOLS } from "../agents/intents";
import { skippedNote } from "../agents/llm";
import { engineOf, modelOf, startRun } from "../agents/runtime";
import { toolMessageContent, toolSpec } from "../agents/tools";
import { rangeOf } from "../agents/types";
import { conversationMessages } from "./prompt";
import type { PreparedChat } from "./service";

export type Emit = (event: string, data: unknown) => Promise<void>;

/** Splits text into word-sized deltas, as a model streams tokens. */
export const chunks = (text: string) => text.match(/\S+\s*/g) ?? [];

/**
 * Answers one chat message, emitting tool_call, tool_result and delta events. rules: intent matching
 * over the read skills, the cited answer streamed in word deltas. llm: the tool-calling loop on
 * Workers AI, then the answer streamed from the model; citations are the tool calls made.
 */
export async function generateAnswer(
  ctx: ServiceContext,
  scopes: readonly string[],
  chat: PreparedChat,
  emit: Emit,
): Promise<{ content: string; citations: Citation[]; engine: string }> {
  // the caller's own scopes: a tool they may not read directly is skipped (agents/tools.ts callTool)
  const run = startRun({ ...ctx, canWrite: false, scopes }, COPILOT_TOOLS, rangeOf({}, 30));
  if (engineOf(ctx) === "rules") {
    const { answer, citations } = await answerByIntents(run, chat.message, {
      onToolCall: (c) => emit("tool_call", c),
      onToolResult: (c) => emit("tool_result", c),
    });
    for (const piece of chunks(answer)) await emit("delta", { text: piece });
    return { content: answer, citations, engine: "rules" };
  }

  const ai = ctx.env.AI as unknown as AiRunner;
  const model = modelOf(ctx);
  const messages: Message[] = [
    {
      role: "system",
      content: `${COPILOT_PROMPT} Today is ${new Date().toISOString().slice(0, 10)}.${skippedNote(run)}`,
    },
    ...conversationMessages(chat.history, chat.message),
  ];
  const tools = COPILOT_TOOLS.filter((t) => !run.skipped.some((s) => s.tool === t)).map(toolSpec);
  const citations: Citation[] = [];
  await runToolLoop({
    ai,
    model,
    messages,
    tools,
    callTool: async (call) => {
      const index = citations.length + 1;
      await emit("tool_call", { index, tool: call.name, input: call.arguments });
      try {
        if (!COPILOT_TOOLS.includes(call.name)) throw new ApiError("VALIDATION_ERROR", `Unknown tool ${call.name}`);
        const result = await run.tool(call.name, call.arguments);
        const content = toolMessageContent(call.name, result);
        const ids = ((result as { data?: { id?: unknown }[] })?.data ?? [])
          .flatMap((x) => (typeof x.id === "string" ? [x.id] : []))
          .slice(0, 10);
        citations.push({ index, tool: call.name, input: call.arguments, ids });
        await emit("tool_result", { index, tool: call.name, ok: true });
        return content;
      } catch (e) {
        await emit("tool_result", { index, tool: call.name, ok: false });
        return JSON.stringify({ error: e instanceof ApiError ? e.message : "The tool failed" });
      }
    },
  });
  const out = await sendWithinCap(ai, model, { messages, stream: true });
  let content = "";
  if (out instanceof ReadableStream) {
    for await (const piece of streamedText(out)) {
      content += piece;
      await emit("delta", { text: piece });
    }
  } else {
    const text = String((out as { response?: unknown })?.response ?? "");
    for (const piece of chunks(text)) {
      content += piece;
      await emit("delta", { text: piece });
    }
  }
  if (!content.trim()) throw new ApiError("UPSTREAM_ERROR", "The model returned an empty answer");
  return { content, citations, engine: "llm" };
}
