import { defineOperation, type Operation } from "../../lib/operation";
import { exposedAgents } from "./registry";
import { runAgentByName } from "./runtime";
import { USER_AGENT_SCOPES } from "./tools";
import { AgentRunResultSchema, agentMayWrite } from "./types";

// Every exposed agent as an operation with an MCP door (scope agent:*): the MCP server lists them like
// every other tool (src/wiring.ts), so mcp does not import agents.

/** Agents that can change data: template-generator saves its drafts as draft templates with create: true. */
const WRITING_AGENTS = new Set(["agent.template-generator"]);

export const operations: Operation[] = exposedAgents().map((agent) =>
  defineOperation({
    name: agent.name,
    summary: agent.title,
    description: agent.description,
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
        {
          ...ctx, // whether the run may write: from the access the door resolved (MCP: skills/run.ts, the one access check)
          canWrite: agentMayWrite(ctx.access),
          scopes: ctx.scopes === "all" ? USER_AGENT_SCOPES : ctx.scopes,
        },
        agent.name,
        input,
      ),
  }),
);
