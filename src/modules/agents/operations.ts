import { defineOperation, type Operation, type OperationContext } from "../../lib/operation";
import { resolveTenantAccess, roleAtLeast } from "../identity/access";
import { findTenantRef, loadUserPrincipal } from "../identity/service";
import { exposedAgents } from "./registry";
import { runAgentByName } from "./runtime";
import { USER_AGENT_SCOPES } from "./tools";
import { AgentRunResultSchema } from "./types";

// Every exposed agent as an operation with an MCP door (scope agent:*): the MCP server lists them like
// every other tool (src/wiring.ts), so mcp does not import agents.

/** User callers may save template drafts with tenant_user or higher; API keys never write through agents. */
async function canWrite(ctx: OperationContext): Promise<boolean> {
  if (ctx.actor.type !== "user") return false;
  // grants are control-only rows; ctx.db is the tenant's shard (docs/scaling.md)
  const [principal, tenant] = await Promise.all([
    loadUserPrincipal(ctx.control, ctx.actor.userId),
    findTenantRef(ctx.control, ctx.tenantId),
  ]);
  const access = principal && tenant ? resolveTenantAccess(principal, tenant) : null;
  return Boolean(access && roleAtLeast(access.role, "tenant_user"));
}

/** Agents that can change data: template-generator saves its drafts as draft templates with create: true. */
const WRITING_AGENTS = new Set(["agent.template-generator"]);

export const operations: Operation[] = exposedAgents().map((agent) =>
  defineOperation({
    name: agent.name,
    summary: agent.title,
    description: `${agent.description} Output: {agent, engine (llm or rules), model, range, generatedAt, inputTokens, toolCalls, output}.`,
    input: agent.input,
    output: AgentRunResultSchema,
    scopes: ["agent:*"],
    // annotations: a writing agent is not read-only (it only adds drafts: not destructive)
    access: WRITING_AGENTS.has(agent.name) ? "write" : "read",
    // a writing agent's input may come from a model steered by outsider text: saving asks the user first
    ...(WRITING_AGENTS.has(agent.name)
      ? {
          confirm: (input: Record<string, unknown>) =>
            input.create === true ? `Save the drafts ${agent.title} writes as draft templates?` : null,
        }
      : {}),
    // agent outputs quote what the tools read (reviews, feedback) and model text made from it
    ...(agent.tools.length ? { untrusted: ["output"] } : {}),
    mcp: { title: agent.title },
    // the agent's tools run with the caller's own scopes: agent:* alone reads nothing
    handler: async (ctx, input) =>
      runAgentByName(
        { ...ctx, canWrite: await canWrite(ctx), scopes: ctx.scopes === "all" ? USER_AGENT_SCOPES : ctx.scopes },
        agent.name,
        input,
      ),
  }),
);
