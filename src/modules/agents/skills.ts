import { type Skill, skill } from "../mcp/skills/registry";
import { exposedAgents } from "./registry";
import { runAgentByName } from "./runtime";
import { AgentRunResultSchema, agentMayWrite } from "./types";

/** Agents that can change data: template-generator saves its drafts as draft templates with create: true. */
const WRITING_AGENTS = new Set(["agent.template-generator"]);

/**
 * Every exposed agent as an MCP skill (scope agent:*), listed by the composition root (src/wiring.ts):
 * mcp does not import agents, because agents call MCP skills as tools.
 */
export const AGENT_SKILLS: Skill[] = exposedAgents().map(
  (agent) =>
    skill({
      name: agent.name,
      title: agent.title,
      description: `${agent.description} Output: {agent, engine (llm or rules), model, range, generatedAt, inputTokens, toolCalls, output}.`,
      input: agent.input,
      scopes: ["agent:*"],
      output: AgentRunResultSchema,
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
      // the agent's tools run with the session's own scopes: agent:* alone reads nothing
      handler: async (ctx, input) =>
        runAgentByName({ ...ctx, canWrite: agentMayWrite(ctx.access), scopes: ctx.caller.scopes }, agent.name, input),
    }) as unknown as Skill,
);
