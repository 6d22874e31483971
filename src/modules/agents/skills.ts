import { findTenantRef, loadUserPrincipal } from "../identity/service";
import { resolveTenantAccess, roleAtLeast } from "../identity/access";
import { defineSkill, findSkill, type SkillContext } from "../mcp/skills/registry";
import "./agents";
import { exposedAgents } from "./registry";
import { runAgentByName } from "./runtime";
import { AgentRunResultSchema } from "./types";

/** User callers may save template drafts with tenant_user or higher; API keys never write through agents. */
async function canWrite(ctx: SkillContext): Promise<boolean> {
  if (ctx.caller.credential === "api_key" || !ctx.caller.userId) return false;
  const [principal, tenant] = await Promise.all([loadUserPrincipal(ctx.db, ctx.caller.userId), findTenantRef(ctx.db, ctx.tenantId)]);
  const access = principal && tenant ? resolveTenantAccess(principal, tenant) : null;
  return Boolean(access && roleAtLeast(access.role, "tenant_user"));
}

/** Agents that can change data: template-generator saves its drafts as draft templates with create: true. */
const WRITING_AGENTS = new Set(["agent.template-generator"]);

/**
 * Offers every exposed agent as an MCP skill (scope agent:*). Called by the composition root
 * (src/worker.ts), not on import: MCP would otherwise import agents, which call MCP skills as tools.
 */
export function defineAgentSkills() {
  for (const agent of exposedAgents()) {
    if (findSkill(agent.name)) continue;
    defineSkill({
      name: agent.name,
      title: agent.title,
      description: `${agent.description} Output: {agent, engine (llm or rules), model, range, generatedAt, inputTokens, toolCalls, output}.`,
      input: agent.input,
      scopes: ["agent:*"],
      output: AgentRunResultSchema,
      // annotations: a writing agent is not read-only (it only adds drafts: not destructive)
      access: WRITING_AGENTS.has(agent.name) ? "write" : "read",
      handler: async (ctx, input) => runAgentByName({ ...ctx, canWrite: await canWrite(ctx) }, agent.name, input),
    });
  }
}
