import { assertWithinTokenCap, MAX_INPUT_TOKENS } from "./tokens";
import { type AiRunner, type Message, type ToolCall, toolCallMessage, toolCallsOf } from "./workers-ai";

/** Tool-calling rounds before the model must answer. */
export const MAX_TOOL_ROUNDS = 6;

/**
 * One model call, refused with 413 PAYLOAD_TOO_LARGE before it is sent when its messages are over the
 * token cap. Every call goes through here, so the cap holds as tool results and retries grow the messages.
 */
export async function sendWithinCap(
  ai: AiRunner,
  model: string,
  body: { messages: Message[] } & Record<string, unknown>,
  cap = MAX_INPUT_TOKENS,
) {
  await assertWithinTokenCap(JSON.stringify(body.messages), cap);
  return ai.run(model, body);
}

export interface ToolLoop {
  ai: AiRunner;
  model: string;
  /** The conversation so far; the loop appends the model's tool calls and the tools' answers to it. */
  messages: Message[];
  /** Tool specs offered to the model; none means no round is run. */
  tools: unknown[];
  /** Runs one call and returns the tool message's content (an error the model should see is content too). */
  callTool(call: ToolCall): Promise<string>;
  maxRounds?: number;
  tokenCap?: number;
}

/**
 * The tool-calling loop shared by agents and the assistant: at most `maxRounds` rounds in which the
 * model may call tools; stops at the first round without calls. The caller then asks for the answer
 * (through `sendWithinCap`) on the grown `messages`.
 */
export async function runToolLoop(o: ToolLoop): Promise<void> {
  const rounds = o.maxRounds ?? MAX_TOOL_ROUNDS;
  for (let round = 0; round < rounds && o.tools.length; round++) {
    const calls = toolCallsOf(await sendWithinCap(o.ai, o.model, { messages: o.messages, tools: o.tools }, o.tokenCap));
    if (!calls.length) break;
    o.messages.push(toolCallMessage(calls));
    for (const call of calls) {
      o.messages.push({ role: "tool", name: call.name, tool_call_id: call.id, content: await o.callTool(call) });
    }
  }
}
