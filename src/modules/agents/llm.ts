import { z } from "@hono/zod-openapi";
import { ApiError } from "../../lib/errors";
import { runToolLoop, sendWithinCap } from "../../providers/llm/tool-loop";
import { type AiRunner, answerOf, type Message } from "../../providers/llm/workers-ai";
import { toolMessageContent, toolSpec } from "./tools";
import type { AgentDefinition, AgentRun } from "./types";

/** Used when the AI_MODEL var is not set: a Workers AI model with function calling and JSON mode. */
export const DEFAULT_MODEL = "@cf/meta/llama-3.3-70b-instruct-fp8-fast";

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
export async function runLlm(
  def: AgentDefinition,
  run: AgentRun,
  input: unknown,
  ai: AiRunner,
  model: string,
): Promise<unknown> {
  // the caller's scopes decide what the model is offered; a skipped tool is named so the answer can say so
  const tools = def.tools.filter((t) => !run.skipped.some((s) => s.tool === t)).map(toolSpec);
  const messages: Message[] = [
    { role: "system", content: `${def.systemPrompt}\n\n${OUTPUT_RULES}${skippedNote(run)}` },
    { role: "user", content: JSON.stringify({ input, range: run.range }) },
  ];
  const read: unknown[] = [input];
  // an unknown tool or a failing one is an error the model reads, not a failed run
  await runToolLoop({
    ai,
    model,
    messages,
    tools,
    callTool: async (call) => {
      if (!def.tools.includes(call.name)) {
        return JSON.stringify({ error: `Unknown tool ${call.name}; use one of ${def.tools.join(", ")}` });
      }
      try {
        const result = await run.tool(call.name, call.arguments);
        read.push(result);
        return toolMessageContent(call.name, result);
      } catch (e) {
        if (!(e instanceof ApiError)) return JSON.stringify({ error: "The tool failed" });
        return JSON.stringify({ error: e.message, code: e.code, details: e.details });
      }
    },
  });

  const schema = z.toJSONSchema(def.output, { io: "output", unrepresentable: "any" });
  messages.push({ role: "user", content: "Now give the final answer: one JSON object matching the schema." });
  let issues: { path: string; message: string }[] = [];
  for (let attempt = 1; attempt <= 2; attempt++) {
    const responseFormat = { type: "json_schema", json_schema: schema };
    const out = await sendWithinCap(ai, model, { messages, response_format: responseFormat });
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
    messages.push({
      role: "user",
      content: `That answer is invalid: ${JSON.stringify(issues.slice(0, 20))}. Reply again with one corrected JSON object only.`,
    });
  }
  throw new ApiError("UPSTREAM_ERROR", "The model's answer did not match the agent's output schema, twice", {
    issues: issues.slice(0, 20),
  });
}
