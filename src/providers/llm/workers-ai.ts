/**
 * The Workers AI binding's wire format for text generation with function calling
 * (https://developers.cloudflare.com/workers-ai/features/function-calling/, .../features/json-mode/):
 * `run(model, {messages, tools})` answers `{response, tool_calls}`; `{stream: true}` answers Server-Sent
 * Events whose data is `{"response": "..."}` until `[DONE]`.
 */

/** The part of the Workers AI binding the runtime uses. */
export interface AiRunner {
  run(model: string, input: Record<string, unknown>): Promise<unknown>;
}

export interface Message {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  name?: string;
  tool_call_id?: string;
  tool_calls?: unknown[];
}

export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

const parseArgs = (a: unknown): Record<string, unknown> => {
  if (typeof a === "string") {
    try {
      const v = JSON.parse(a);
      return v && typeof v === "object" ? v : {};
    } catch {
      return {};
    }
  }
  return a && typeof a === "object" ? (a as Record<string, unknown>) : {};
};

/** Tool calls in either Workers AI shape: {name, arguments} or OpenAI-style {id, function: {name, arguments}}. */
export function toolCallsOf(out: unknown): ToolCall[] {
  const calls = (out as { tool_calls?: unknown })?.tool_calls;
  if (!Array.isArray(calls)) return [];
  return calls.flatMap((c, i) => {
    const fn = (c as { function?: { name?: unknown; arguments?: unknown } }).function;
    const name = fn?.name ?? (c as { name?: unknown }).name;
    if (typeof name !== "string") return [];
    const id = typeof (c as { id?: unknown }).id === "string" ? (c as { id: string }).id : `call_${i}`;
    return [{ id, name, arguments: parseArgs(fn ? fn.arguments : (c as { arguments?: unknown }).arguments) }];
  });
}

/** The assistant message that records the model's tool calls, in the OpenAI-style shape the models accept back. */
export const toolCallMessage = (calls: ToolCall[]): Message => ({
  role: "assistant",
  content: "",
  tool_calls: calls.map((c) => ({
    id: c.id,
    type: "function",
    function: { name: c.name, arguments: JSON.stringify(c.arguments) },
  })),
});

/** The model's answer: JSON mode gives an object, plain mode a string (maybe fenced). */
export function answerOf(out: unknown): unknown {
  const r = (out as { response?: unknown })?.response;
  if (typeof r !== "string") return r;
  const unfenced = r
    .trim()
    .replace(/^```(?:json)?\s*/i, "")
    .replace(/```$/, "");
  try {
    return JSON.parse(unfenced);
  } catch {
    return r;
  }
}

/** A streamed answer: Server-Sent Events whose data is {"response": "..."} until [DONE]. */
export async function* streamedText(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
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
