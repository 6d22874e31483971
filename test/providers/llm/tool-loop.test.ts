import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/lib/errors";
import { MAX_TOOL_ROUNDS, runToolLoop, sendWithinCap } from "../../../src/providers/llm/tool-loop";
import { type Message, streamedText, toolCallsOf } from "../../../src/providers/llm/workers-ai";
import { standInAi } from "../../agents/helpers";

const TOOLS = [{ name: "echo", description: "echo", parameters: { type: "object", properties: {} } }];
const conversation = (): Message[] => [{ role: "user", content: "hi" }];

describe("runToolLoop (one loop for agents and the assistant)", () => {
  it("feeds each call's answer back as a tool message, in both Workers AI tool-call shapes, until a round without calls", async () => {
    const ai = standInAi([
      { tool_calls: [{ name: "echo", arguments: { n: 1 } }] },
      { tool_calls: [{ id: "c9", type: "function", function: { name: "echo", arguments: '{"n":2}' } }] },
      { response: "done" },
    ]);
    const messages = conversation();
    const seen: unknown[] = [];
    await runToolLoop({
      ai,
      model: "@cf/test",
      messages,
      tools: TOOLS,
      callTool: async (c) => {
        seen.push(c.arguments);
        return `ok ${c.arguments.n}`;
      },
    });
    expect(seen).toEqual([{ n: 1 }, { n: 2 }]);
    expect(ai.calls).toHaveLength(3);
    expect(ai.calls.every((c) => c.model === "@cf/test" && c.input.tools)).toBe(true);
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "hi"],
      ["assistant", ""],
      ["tool", "ok 1"],
      ["assistant", ""],
      ["tool", "ok 2"],
    ]);
    expect(messages[3]!.tool_calls).toEqual([
      { id: "c9", type: "function", function: { name: "echo", arguments: '{"n":2}' } },
    ]);
    expect(messages[4]).toMatchObject({ name: "echo", tool_call_id: "c9" });
  });

  it("stops after MAX_TOOL_ROUNDS rounds of calls; with no tools offered it runs none", async () => {
    const always = Array.from({ length: MAX_TOOL_ROUNDS + 2 }, () => ({
      tool_calls: [{ name: "echo", arguments: {} }],
    }));
    const ai = standInAi(always);
    await runToolLoop({ ai, model: "m", messages: conversation(), tools: TOOLS, callTool: async () => "ok" });
    expect(ai.calls).toHaveLength(MAX_TOOL_ROUNDS);
    const idle = standInAi([]);
    await runToolLoop({ ai: idle, model: "m", messages: conversation(), tools: [], callTool: async () => "ok" });
    expect(idle.calls).toHaveLength(0);
  });

  it("checks the token cap on every round: a tool result that grows the messages past it stops the loop before the next call", async () => {
    const ai = standInAi([{ tool_calls: [{ name: "echo", arguments: {} }] }, { response: "never asked" }]);
    const messages = conversation();
    const run = runToolLoop({
      ai,
      model: "m",
      messages,
      tools: TOOLS,
      tokenCap: 1_000,
      callTool: async () => "word ".repeat(2_000),
    });
    const error = await run.catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { limit: 1_000, tokenizer: "cl100k_base" } });
    expect(ai.calls).toHaveLength(1);
  });

  it("sendWithinCap refuses before sending, and sends what fits", async () => {
    const ai = standInAi([{ response: "fine" }]);
    const big = [{ role: "user", content: "word ".repeat(200) }] as Message[];
    await expect(sendWithinCap(ai, "m", { messages: big }, 100)).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    expect(ai.calls).toHaveLength(0);
    expect(await sendWithinCap(ai, "m", { messages: conversation() }, 100)).toEqual({ response: "fine" });
  });
});

describe("Workers AI wire format", () => {
  it("tool calls without a name are dropped; string arguments that are not JSON become {}", () => {
    expect(toolCallsOf({ tool_calls: [{ arguments: {} }, { name: "a", arguments: "{oops" }] })).toEqual([
      { id: "call_1", name: "a", arguments: {} },
    ]);
    expect(toolCallsOf({ response: "text" })).toEqual([]);
  });

  it("reads a streamed answer across chunk boundaries, skipping keep-alives, until [DONE]", async () => {
    const enc = new TextEncoder();
    const parts = [
      'data: {"response":"Hel',
      'lo"}\r\n\r\n: keep-alive\n\n',
      'data: {"response":" world"}\n\ndata: [DONE]\n\n',
      'data: {"response":"late"}\n\n',
    ];
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (const p of parts) c.enqueue(enc.encode(p));
        c.close();
      },
    });
    const pieces: string[] = [];
    for await (const p of streamedText(stream)) pieces.push(p);
    expect(pieces).toEqual(["Hello", " world"]);
  });
});
