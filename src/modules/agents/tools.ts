import type { z } from "@hono/zod-openapi";
import { catalogue } from "../../lib/catalogue";
import { ApiError, validationError } from "../../lib/errors";
import {
  agentInputOf,
  bodyOf,
  type CallerScopes,
  checkedInput,
  fromAgentInput,
  fromMcpInput,
  mcpInputOf,
  type Operation,
} from "../../lib/operation";
import { inputJsonSchema } from "../mcp/skills/registry";
import { describeUntrusted, forModel } from "../mcp/skills/untrusted";
import { READ_SCOPES, type Scope } from "../oauth/scopes";
import type { AgentContext } from "./types";

type ObjectSchema = z.ZodObject<z.ZodRawShape>;

/** A read-only tool an agent may call: the same services as REST and MCP, always on the caller's tenant. */
export interface AgentTool {
  name: string;
  description: string;
  input: ObjectSchema;
  /**
   * Any one of these admits the call (required: a tool without scopes cannot be declared). They match
   * the REST routes of the same data (src/modules/identity/scopes.ts), so an agent reads no more than
   * its caller could read directly.
   */
  scopes: Scope[];
  /** paths in the result that hold outsider text: the model gets them marked (mcp/skills/untrusted.ts) */
  untrusted?: string[];
  // biome-ignore lint/suspicious/noExplicitAny: each tool's input is parsed by its own zod schema before the call
  handler(ctx: AgentContext, input: any): Promise<unknown>;
}

/** What a signed-in user may read through an agent: every read scope (the role decides writes, not reads). */
export const USER_AGENT_SCOPES: readonly Scope[] = READ_SCOPES;
/** The service's own agent runs (reply drafting on a review event) read like a signed-in user. */
export const SYSTEM_AGENT_SCOPES: readonly Scope[] = READ_SCOPES;

/** The scopes an agent run carries for its caller: an API key's or OAuth grant's own, a signed-in user's reads. */
export const callerScopes = (scopes: CallerScopes): readonly string[] =>
  scopes === "all" ? USER_AGENT_SCOPES : scopes;

/*
 * The agents' tools are derived from the catalogue the composition root installed (src/lib/catalogue.ts),
 * never listed here:
 *   - an operation with an `agent` door: its JSON input with the door's defaults and names (`toolOf`);
 *   - a read operation with an MCP door acting on one tenant, admitted by read scopes only: the MCP
 *     tool's input (less the agency tenantId: agents never leave the caller's tenant) and answer
 *     (`viaMcpDoor`). An operation with both doors is offered through its agent door (sla.overdue: the
 *     bare array the optimization agent reads).
 */

/** The agent door of an operation: the REST input as JSON fields with the door's defaults, the door's scopes, the same handler. */
export function toolOf(op: Operation): AgentTool {
  if (!op.agent) throw new Error(`${op.name} has no agent door`);
  return {
    name: op.name,
    description: op.agent.description ?? (op.description ? `${op.summary}. ${op.description}` : op.summary),
    input: agentInputOf(op),
    scopes: [...op.agent.scopes] as Scope[],
    untrusted: op.untrusted,
    handler: async (ctx, i) =>
      bodyOf(await op.handler({ ...ctx, scopes: ctx.scopes }, checkedInput(op, fromAgentInput(op, i)) as never)),
  };
}

/** Whether a read operation's MCP door doubles as an agent tool: one tenant, read scopes only, not an agent itself. */
const readsThroughMcp = (op: Operation) => {
  const scopes = op.mcp?.scopes ?? op.scopes;
  return Boolean(
    op.mcp &&
      op.context === "tenant" &&
      op.access === "read" &&
      !op.name.startsWith("agent.") &&
      scopes.length &&
      scopes.every((x) => x.startsWith("read:")),
  );
};

/** An MCP read as an agent tool: the tool's own input, description and answer (an array output inside its wrap). */
function viaMcpDoor(op: Operation): AgentTool {
  const door = op.mcp!;
  const wrap = door.wrap;
  return {
    name: op.name,
    description: door.description ?? op.description ?? op.summary,
    input: mcpInputOf(op),
    scopes: [...(door.scopes ?? op.scopes)] as Scope[],
    untrusted: wrap ? op.untrusted?.map((p) => `${wrap}${p}`) : op.untrusted,
    handler: async (ctx, i) => {
      const result = bodyOf(
        await op.handler({ ...ctx, scopes: ctx.scopes }, checkedInput(op, fromMcpInput(op, i)) as never),
      );
      return wrap ? { [wrap]: result } : result;
    },
  };
}

/** Tools by name, derived once per installed catalogue. */
let derived: { from: readonly Operation[]; tools: Map<string, { tool: AgentTool; op: Operation }> } | undefined;
function tools() {
  const ops = catalogue();
  if (derived?.from !== ops) {
    const map = new Map<string, { tool: AgentTool; op: Operation }>();
    for (const op of ops) {
      if (op.agent) map.set(op.name, { tool: toolOf(op), op });
      else if (readsThroughMcp(op)) map.set(op.name, { tool: viaMcpDoor(op), op });
    }
    derived = { from: ops, tools: map };
  }
  return derived.tools;
}

/** Every agent tool, by name. */
export const agentTools = (): AgentTool[] =>
  [...tools().values()].map((t) => t.tool).sort((a, b) => a.name.localeCompare(b.name));

/** The operation an agent tool was derived from (every tool is: test/mcp/input-parity.test.ts). */
export const toolOperation = (name: string): Operation | undefined => tools().get(name)?.op;

export const findTool = (name: string): AgentTool | undefined => tools().get(name)?.tool;

/** Every tool that reads through an MCP door (the operator copilot may call any of them). */
export const readSkillNames = () =>
  [...tools().values()]
    .filter((t) => readsThroughMcp(t.op))
    .map((t) => t.tool.name)
    .sort();

/** The scopes that admit a tool (any one), or null for an unknown tool. */
export const toolScopes = (name: string): Scope[] | null => findTool(name)?.scopes ?? null;

/** The scopes the caller lacks for the tool (any one would do), or null when the caller may use it. */
export function missingScopes(granted: readonly string[], name: string): string[] | null {
  const admits = toolScopes(name);
  if (!admits) return null;
  return admits.some((s) => granted.includes(s)) ? null : [...admits];
}

/** A tool call the caller's scopes do not cover: nothing is read; the message names the scope. */
export class ToolSkipped extends ApiError {
  constructor(
    readonly tool: string,
    readonly missing: string[],
  ) {
    super(
      "FORBIDDEN",
      `${tool} was skipped: it needs the scope ${missing.join(" or ")}, which this caller was not granted`,
      { tool, missingScopes: missing },
    );
  }
}

/**
 * The one door every agent tool call goes through (the runtime's run.tool, the llm loop, the
 * assistant): the caller's scopes first, then the input, then the handler.
 */
export async function callTool(ctx: AgentContext, name: string, raw: Record<string, unknown>): Promise<unknown> {
  const tool = findTool(name);
  if (!tool) throw validationError([{ path: "tool", message: `Unknown tool ${name}` }]);
  const missing = missingScopes(ctx.scopes, name);
  if (missing) throw new ToolSkipped(name, missing);
  const parsed = tool.input.safeParse(raw);
  if (!parsed.success) {
    throw validationError(
      parsed.error.issues.map((i) => ({ path: `${name}.${i.path.join(".")}`, message: i.message })),
      `Invalid input for tool ${name}`,
    );
  }
  return tool.handler(ctx, parsed.data);
}

/** The tool as a Workers AI function definition. */
export function toolSpec(name: string) {
  const tool = findTool(name)!;
  const fake = { input: tool.input } as Parameters<typeof inputJsonSchema>[0];
  return { name, description: describeUntrusted(tool.description, tool.untrusted), parameters: inputJsonSchema(fake) };
}

/** A tool's result as the model's tool message: outsider text inside the untrusted envelope. */
export const toolMessageContent = (name: string, result: unknown) =>
  JSON.stringify(forModel(result, findTool(name)?.untrusted));
