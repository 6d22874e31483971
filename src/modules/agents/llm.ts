import { z } from "@hono/zod-openapi";
import { ApiError } from "../../lib/errors";
import { toolMessageContent, toolSpec } from "./tools";
import { assertWithinTokenCap } from "./tokens";
import type { AgentDefinition, AgentRun } from "./types";

/** Used when the AI_MODEL var is not set: a Workers AI model with function calling and JSON mode. */
export const DEFAULT_MODEL = "@cf/meta/llama-3.3-70b-instruct-fp8-fast";
/** Tool-calling rounds before the model must answer. */
export const MAX_TOOL_ROUNDS = 6;

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

interface ToolCall {
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

/** The model's answer: JSON mode gives an object, plain mode a string (maybe fenced). */
function answerOf(out: unknown): unknown {
  const r = (out as { response?: unknown })?.response;
  if (typeof r !== "string") return r;
  const unfenced = r.trim().replace(/^```(?:json)?\s*/i, "").replace(/```$/, "");
  try {
    return JSON.parse(unfenced);
  } catch {
    return r;
  }
}

const textOf = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

/** Every string that appears as an id in what was read (keys `id` or `...Id`), plus the input's strings. */
function knownIds(values: unknown[]): Set<string> {
  const ids = new Set<string>();
  const walk = (v: unknown, key: string | null) => {
    if (typeof v === "string") {
      if (key === null || key === "id" || key.endsWith("Id")) ids.add(v);
    } else if (Array.isArray(v)) for (const x of v) walk(x, key);
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  for (const v of values) walk(v, null);
  return ids;
}

/** Evidence ids the output cites that nothing read contains: invented evidence. */
function inventedEvidence(output: unknown, known: Set<string>): string[] {
  const bad: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        if (k === "evidence" && Array.isArray(x)) {
          for (const e of x) if (e && typeof e.id === "string" && !known.has(e.id)) bad.push(e.id);
        } else walk(x);
      }
    }
  };
  walk(output);
  return bad;
}

/** Tells the model which tools the caller's scopes withhold, so its answer says what it could not read. */
export const skippedNote = (run: Pick<AgentRun, "skipped">) =>
  run.skipped.length
    ? `\n\nThe caller's access does not cover these tools, so they are not offered: ${run.skipped.map((s) => `${s.tool} (needs ${s.missingScopes.join(" or ")})`).join(", ")}. If the question needs them, say which scope is missing.`
    : "";

const OUTPUT_RULES =
  "Use only the tools to read data; never invent ids, figures or quotes. Every claim carries evidence items " +
  "{source, id, label, value} copied from tool results (source = the tool name). When asked for the final answer, reply " +
  "with one JSON object matching the given JSON schema and nothing else.";

/**
 * The llm engine: a tool-calling loop on Workers AI (at most MAX_TOOL_ROUNDS rounds), then the
 * answer in JSON mode constrained by the output's JSON schema, validated against the zod schema and
 * checked for invented evidence ids; one retry with the issues, then 502 UPSTREAM_ERROR.
 */
export async function runLlm(def: AgentDefinition, run: AgentRun, input: unknown, ai: AiRunner, model: string): Promise<unknown> {
  // the caller's scopes decide what the model is offered; a skipped tool is named so the answer can say so
  const tools = def.tools.filter((t) => !run.skipped.some((s) => s.tool === t)).map(toolSpec);
  const messages: Message[] = [
    { role: "system", content: `${def.systemPrompt}\n\n${OUTPUT_RULES}${skippedNote(run)}` },
    { role: "user", content: JSON.stringify({ input, range: run.range }) },
  ];
  const read: unknown[] = [input];
  const send = async (body: Record<string, unknown>) => {
    await assertWithinTokenCap(JSON.stringify(body.messages));
    return ai.run(model, body);
  };
  for (let round = 0; round < MAX_TOOL_ROUNDS && tools.length; round++) {
    const calls = toolCallsOf(await send({ messages, tools }));
    if (!calls.length) break;
    messages.push({ role: "assistant", content: "", tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) });
    for (const call of calls) {
      let result: unknown;
      let content: string | null = null;
      if (!def.tools.includes(call.name)) result = { error: `Unknown tool ${call.name}; use one of ${def.tools.join(", ")}` };
      else {
        try {
          result = await run.tool(call.name, call.arguments);
          read.push(result);
          content = toolMessageContent(call.name, result);
        } catch (e) {
          result = { error: e instanceof ApiError ? e.message : "The tool failed", ...(e instanceof ApiError ? { code: e.code, details: e.details } : {}) };
        }
      }
      messages.push({ role: "tool", name: call.name, tool_call_id: call.id, content: content ?? JSON.stringify(result) });
    }
  }

  const schema = z.toJSONSchema(def.output, { io: "output", unrepresentable: "any" });
  messages.push({ role: "user", content: "Now give the final answer: one JSON object matching the schema." });
  let issues: { path: string; message: string }[] = [];
  for (let attempt = 1; attempt <= 2; attempt++) {
    const out = await send({ messages, response_format: { type: "json_schema", json_schema: schema } });
    const answer = answerOf(out);
    const parsed = def.output.safeParse(answer);
    if (parsed.success) {
      const invented = inventedEvidence(parsed.data, knownIds(read));
      if (!invented.length) return parsed.data;
      issues = invented.map((id) => ({ path: "evidence.id", message: `${id} is not an id any tool returned` }));
    } else {
      issues = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
    }
    messages.push({ role: "assistant", content: textOf(answer) });
    messages.push({ role: "user", content: `That answer is invalid: ${JSON.stringify(issues.slice(0, 20))}. Reply again with one corrected JSON object only.` });
  }
  throw new ApiError("UPSTREAM_ERROR", "The model's answer did not match the agent's output schema, twice", { issues: issues.slice(0, 20) });
}
