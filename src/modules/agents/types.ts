import { z } from "@hono/zod-openapi";
import type { ServiceContext } from "../../lib/context";
import { roleAtLeast, type TenantAccess } from "../identity/access";

/** One fact a claim rests on: the record it was read from and the figure. Nothing else counts as evidence. */
export const EvidenceSchema = z
  .object({
    source: z.string().describe("the tool the fact was read with (e.g. review.list, analytics.funnel), or 'input'"),
    id: z.string().nullable().describe("the id of the record the fact comes from, when it comes from one record"),
    label: z.string().describe("what the figure is"),
    value: z.union([z.number(), z.string(), z.null()]).describe("the figure or quoted text"),
  })
  .openapi("AgentEvidence");
export type Evidence = z.infer<typeof EvidenceSchema>;

export const Evidences = z.array(EvidenceSchema).max(50);

export const RangeSchema = z.object({ from: z.iso.date(), to: z.iso.date() }).openapi("AgentRange");
export type DateRange = z.infer<typeof RangeSchema>;

/** Optional date-range inputs shared by every agent that reads history. */
export const RangeInput = {
  dateFrom: z.iso.date().optional().describe("default dateTo - 90 days"),
  dateTo: z.iso.date().optional().describe("default today"),
};

export const ENGINES = ["llm", "rules"] as const;
export type Engine = (typeof ENGINES)[number];

/** The context an agent runs in: the caller's tenant, what the caller may read, and whether it may write (template drafts). */
export interface AgentContext extends ServiceContext {
  /** whether the run may write (template drafts): decided by its door from the access it resolved (service.ts runAgentFor) */
  canWrite: boolean;
  /** the caller's access to the tenant as its door resolved it (identity/access.ts); absent for the service's own runs */
  access?: TenantAccess;
  /**
   * The caller's own scopes (an OAuth grant's, an API key's; a signed-in user's role gives every read
   * scope). Every tool call is checked against them in tools.ts `callTool`: an agent never reads more
   * than its caller could read directly.
   */
  scopes: readonly string[];
}

/**
 * Whether a run may write (save template drafts), from the access its door resolved (the one access
 * check, identity/access.ts: a paused tenant's users act as viewers): a user with tenant_user or more.
 * API keys never write through agents.
 */
export const agentMayWrite = (access: TenantAccess | undefined): boolean =>
  Boolean(access && access.via !== "api_key" && roleAtLeast(access.role, "tenant_user"));

/** A tool of the agent the caller's scopes do not cover: not offered to the model, refused if called. */
export interface SkippedTool {
  tool: string;
  /** any one of these would have admitted the call */
  missingScopes: string[];
}

export interface ToolCallRecord {
  tool: string;
  input: Record<string, unknown>;
  ok: boolean;
  durationMs: number;
  /** set when the call was skipped because the caller lacks every scope that admits the tool */
  missingScopes?: string[];
}

/** What an engine gets: the tools the agent may call (tenant-scoped, read-only), and the time range. */
export interface AgentRun {
  ctx: AgentContext;
  range: DateRange | null;
  /** calls one of the agent's tools; every call is recorded (and cited by the assistant) */
  // biome-ignore lint/suspicious/noExplicitAny: callers name the result type they read; untyped JSON by default
  tool<T = any>(name: string, input?: Record<string, unknown>): Promise<T>;
  calls: ToolCallRecord[];
  /** the agent's tools this caller may not use (its scopes do not cover them) */
  skipped: SkippedTool[];
}

type ObjectSchema = z.ZodObject<z.ZodRawShape>;

export interface AgentDefinition<I extends ObjectSchema = ObjectSchema, O extends ObjectSchema = ObjectSchema> {
  /** agent.<kebab-name> */
  name: string;
  title: string;
  /** for the skill catalog and OpenAPI: what it returns and when to use it */
  description: string;
  input: I;
  output: O;
  systemPrompt: string;
  /** the read-only tools it may call (names from tools.ts) */
  tools: string[];
  /** the history window its inputs ask for; null when it reads no history */
  range(input: z.infer<I>): DateRange | null;
  /** the deterministic engine: the same output schema computed from the tenant's data */
  rules(run: AgentRun, input: z.infer<I>): Promise<z.infer<O>>;
  /** runs after either engine (e.g. creating template drafts when asked) */
  finish?(run: AgentRun, input: z.infer<I>, output: z.infer<O>): Promise<z.infer<O>>;
  /** exposed as an agent.* skill and over REST; false for internal agents (reply drafting) */
  exposed?: boolean;
}

export const AgentRunResultSchema = z
  .object({
    agent: z.string(),
    engine: z.enum(ENGINES).openapi({ description: "llm: Workers AI; rules: the deterministic analytic engine" }),
    model: z.string().nullable().openapi({ description: "the Workers AI model (llm engine only)" }),
    range: RangeSchema.nullable().openapi({
      description: "the history window the output is computed from; null when no history is read",
    }),
    generatedAt: z.string(),
    inputTokens: z.number().int(),
    toolCalls: z.array(
      z.object({
        tool: z.string(),
        input: z.record(z.string(), z.unknown()),
        ok: z.boolean(),
        durationMs: z.number(),
        missingScopes: z
          .array(z.string())
          .optional()
          .openapi({ description: "set when the call was skipped: the caller lacks every one of these scopes" }),
      }),
    ),
    skippedTools: z.array(z.object({ tool: z.string(), missingScopes: z.array(z.string()) })).openapi({
      description:
        "the agent's tools the caller's scopes do not cover: not used in this run; any one of missingScopes would admit the tool",
    }),
    output: z
      .record(z.string(), z.unknown())
      .openapi({ description: "the agent's structured output (see docs/ai.md)" }),
  })
  .openapi("AgentRunResult");
export type AgentRunResult = z.infer<typeof AgentRunResultSchema>;

// the day windows are the shared ones (src/lib/day-range.ts)
export { addDays, daysIn, rangeOf, today } from "../../lib/day-range";
