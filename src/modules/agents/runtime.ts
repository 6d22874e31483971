import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import { ApiError, notFound, validationError } from "../../lib/errors";
import { inputShape } from "../../lib/input-shape";
import { assertWithinTokenCap } from "../../providers/llm/tokens";
import type { AiRunner } from "../../providers/llm/workers-ai";
import { DEFAULT_MODEL, runLlm } from "./llm";
import { findAgent } from "./registry";
import { callTool, missingScopes, ToolSkipped } from "./tools";
import type {
  AgentContext,
  AgentDefinition,
  AgentRun,
  AgentRunResult,
  DateRange,
  Engine,
  ToolCallRecord,
} from "./types";

export const AGENT_TIMEOUT_MS = 60_000;

const timeoutOf = (ctx: AgentContext) => Number(ctx.env.AGENT_TIMEOUT_MS) || AGENT_TIMEOUT_MS;
export const modelOf = (ctx: Pick<AgentContext, "env">) => ctx.env.AI_MODEL || DEFAULT_MODEL;
/** llm whenever the Workers AI binding is configured, else rules. */
export const engineOf = (ctx: Pick<AgentContext, "env">): Engine => (ctx.env.AI ? "llm" : "rules");

/**
 * A run's tool access: only the agent's own tools, on the caller's tenant, within the caller's
 * scopes (tools.ts callTool refuses the others), each call recorded.
 */
export function startRun(ctx: AgentContext, tools: string[], range: DateRange | null): AgentRun {
  const calls: ToolCallRecord[] = [];
  const skipped = tools.flatMap((tool) => {
    const missing = missingScopes(ctx.scopes, tool);
    return missing ? [{ tool, missingScopes: missing }] : [];
  });
  return {
    ctx,
    range,
    calls,
    skipped,
    async tool(name, input = {}) {
      if (!tools.includes(name)) throw new ApiError("INTERNAL", `tool ${name} is not one of this agent's tools`);
      const started = Date.now();
      try {
        const out = await callTool(ctx, name, input);
        calls.push({ tool: name, input, ok: true, durationMs: Date.now() - started });
        return out as never;
      } catch (e) {
        calls.push({
          tool: name,
          input,
          ok: false,
          durationMs: Date.now() - started,
          ...(e instanceof ToolSkipped ? { missingScopes: e.missing } : {}),
        });
        throw e;
      }
    },
  };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ApiError("TIMEOUT", `The agent did not finish within ${ms / 1000} s`, { timeoutMs: ms })),
      ms,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const outcomeOf = (e: unknown) =>
  e instanceof ApiError
    ? ((
        {
          TIMEOUT: "timeout",
          PAYLOAD_TOO_LARGE: "too_large",
          VALIDATION_ERROR: "invalid_input",
          UPSTREAM_ERROR: "model_error",
        } as Record<string, string>
      )[e.code] ?? "error")
    : "error";

/**
 * Runs an agent: input token cap (before anything else), input validation, the engine (llm when the
 * AI binding exists, else rules) under the 60 s timeout, then the agent's finish step. Every run,
 * failed ones included, writes an `agent.run` audit row.
 */
export async function runAgent(
  ctx: AgentContext,
  def: AgentDefinition,
  rawInput: unknown,
  o: { engine?: Engine } = {},
): Promise<AgentRunResult> {
  const started = Date.now();
  const engine = o.engine ?? engineOf(ctx);
  const model = engine === "llm" ? modelOf(ctx) : null;
  let tokens = 0;
  let range: DateRange | null = null;
  let run: AgentRun | null = null;
  let outcome = "success";
  let error: string | undefined;
  try {
    tokens = await assertWithinTokenCap(`${def.systemPrompt}\n${JSON.stringify(rawInput ?? {})}`);
    const parsed = def.input.safeParse(rawInput ?? {});
    if (!parsed.success)
      throw validationError(parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })));
    const input = parsed.data;
    range = def.range(input);
    const r = startRun(ctx, def.tools, range);
    run = r;
    const work = async () => {
      const output =
        engine === "llm"
          ? await runLlm(def, r, input, ctx.env.AI as unknown as AiRunner, model!)
          : def.output.parse(await def.rules(r, input));
      return def.finish ? def.finish(r, input, output as never) : output;
    };
    const output = await withTimeout(work(), timeoutOf(ctx));
    return {
      agent: def.name,
      engine,
      model,
      range,
      generatedAt: new Date().toISOString(),
      inputTokens: tokens,
      toolCalls: r.calls,
      skippedTools: r.skipped,
      output: output as Record<string, unknown>,
    };
  } catch (e) {
    outcome = outcomeOf(e);
    error = e instanceof ApiError ? e.message : "Internal error";
    throw e;
  } finally {
    await commit(ctx, [
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "agent.run",
        resourceType: "agent",
        resourceId: def.name,
        metadata: {
          engine,
          model,
          outcome,
          ...(error ? { error } : {}),
          inputShape: inputShape(rawInput),
          inputTokens: tokens,
          range,
          toolCalls: run?.calls.map((c) => ({ tool: c.tool, ok: c.ok })) ?? [],
          skippedTools: run?.skipped.map((s) => s.tool) ?? [],
          durationMs: Date.now() - started,
        },
      }),
    ]);
  }
}

/** For REST and MCP: the exposed agent by name, else 404. */
export async function runAgentByName(ctx: AgentContext, name: string, rawInput: unknown) {
  const def = findAgent(name);
  if (!def || def.exposed === false) throw notFound("Agent");
  return runAgent(ctx, def, rawInput);
}
