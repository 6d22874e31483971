import type { ServiceContext } from "../../lib/context";
import { ApiError } from "../../lib/errors";
import { COPILOT_PROMPT } from "../agents/agents/operator-copilot";
import { answerByIntents, COPILOT_TOOLS, type Citation } from "../agents/intents";
import { skippedNote, toolCallsOf, MAX_TOOL_ROUNDS, type AiRunner, type Message } from "../agents/llm";
import { engineOf, modelOf, startRun } from "../agents/runtime";
import { toolMessageContent, toolSpec } from "../agents/tools";
import { rangeOf } from "../agents/types";
import type { PreparedChat } from "./service";

export type Emit = (event: string, data: unknown) => Promise<void>;

/** Splits text into word-sized deltas, as a model streams tokens. */
export const chunks = (text: string) => text.match(/\S+\s*/g) ?? [];

/** Workers AI's streamed answer: Server-Sent Events whose data is {"response": "..."} until [DONE]. */
async function* streamedText(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      const line = buffer.slice(0, nl).replace(/\r$/, "");
      buffer = buffer.slice(nl + 1);
      if (!line.startsWith("data:")) continue;
      const data = line.slice(5).trim();
      if (data === "[DONE]") return;
      try {
        const piece = (JSON.parse(data) as { response?: unknown }).response;
        if (typeof piece === "string" && piece) yield piece;
      } catch {
        /* a keep-alive or partial line */
      }
    }
  }
}

/**
 * Answers one chat message, emitting tool_call, tool_result and delta events. rules: intent matching
 * over the read skills, the cited answer streamed in word deltas. llm: the tool-calling loop on
 * Workers AI, then the answer streamed from the model; citations are the tool calls made.
 */
export async function generateAnswer(ctx: ServiceContext, scopes: readonly string[], chat: PreparedChat, emit: Emit): Promise<{ content: string; citations: Citation[]; engine: string }> {
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
    { role: "system", content: `${COPILOT_PROMPT} Today is ${new Date().toISOString().slice(0, 10)}.${skippedNote(run)}` },
    ...chat.history.slice(-10).map((m) => ({ role: m.role, content: m.content }) as Message),
    { role: "user", content: chat.message },
  ];
  const tools = COPILOT_TOOLS.filter((t) => !run.skipped.some((s) => s.tool === t)).map(toolSpec);
  const citations: Citation[] = [];
  for (let round = 0; round < MAX_TOOL_ROUNDS; round++) {
    const calls = toolCallsOf(await ai.run(model, { messages, tools }));
    if (!calls.length) break;
    messages.push({ role: "assistant", content: "", tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) });
    for (const call of calls) {
      const index = citations.length + 1;
      await emit("tool_call", { index, tool: call.name, input: call.arguments });
      let result: unknown;
      let content: string | null = null;
      try {
        if (!COPILOT_TOOLS.includes(call.name)) throw new ApiError("VALIDATION_ERROR", `Unknown tool ${call.name}`);
        result = await run.tool(call.name, call.arguments);
        content = toolMessageContent(call.name, result);
        const ids = ((result as { data?: { id?: unknown }[] })?.data ?? []).flatMap((x) => (typeof x.id === "string" ? [x.id] : [])).slice(0, 10);
        citations.push({ index, tool: call.name, input: call.arguments, ids });
        await emit("tool_result", { index, tool: call.name, ok: true });
      } catch (e) {
        result = { error: e instanceof ApiError ? e.message : "The tool failed" };
        await emit("tool_result", { index, tool: call.name, ok: false });
      }
      messages.push({ role: "tool", name: call.name, tool_call_id: call.id, content: content ?? JSON.stringify(result) });
    }
  }
  const out = await ai.run(model, { messages, stream: true });
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
