import { z } from "@hono/zod-openapi";
import { errors, json, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { exposedAgents } from "./registry";
import { AgentListSchema, AgentNameParam, AgentRunBody, AgentSchemasSchema, agentJsonSchemas } from "./schemas";
import { listAgents, runAgentFor } from "./service";
import { AgentRunResultSchema } from "./types";

// The agents in the catalogue (src/lib/operation.ts): REST lists them and runs one by name; every
// exposed agent is also an operation with an MCP door (scope agent:*) of its own, so the MCP server
// lists them like every other tool (src/wiring.ts), and mcp does not import agents.

const tags = ["Agents"];

export const listAgentsOperation = defineOperation({
  name: "agents.list",
  operationId: "listAgents",
  method: "get",
  path: "/v1/agents",
  tags,
  summary: "List the agents",
  output: AgentListSchema,
  errors: stdErrors,
  scopes: [],
  access: "read",
  handler: async () => listAgents(),
});

export const listAgentSchemasOperation = defineOperation({
  name: "agents.schemas",
  operationId: "listAgentSchemas",
  method: "get",
  path: "/v1/agents/schemas",
  tags,
  summary: "Input and output schemas of every agent",
  output: AgentSchemasSchema,
  errors: stdErrors,
  scopes: [],
  access: "read",
  handler: async () => agentJsonSchemas(),
});

export const runAgentOperation = defineOperation({
  name: "agents.run",
  operationId: "runAgent",
  method: "post",
  path: "/v1/agents/{name}/run",
  tags,
  summary: "Run an agent (any role; saving template drafts needs tenant_user)",
  description:
    "Runs the agent with the llm engine when Workers AI is configured, else the rules engine. 60 s timeout (504 TIMEOUT); audited.",
  // the agent's input is a record of its own fields: whole under `input`, apart from the path's name
  request: { params: AgentNameParam, body: AgentRunBody, bodyField: "input" as const },
  output: AgentRunResultSchema,
  errors: {
    ...stdErrorsWithNotFound,
    413: errors[413],
    502: json(
      z.object({ error: z.string(), code: z.string() }).openapi("AgentModelError"),
      "The model's output failed validation twice",
    ),
    504: json(
      z.object({ error: z.string(), code: z.string() }).openapi("AgentTimeout"),
      "The agent did not finish within 60 s",
    ),
  },
  scopes: [],
  // the run writes only what the caller's access allows (template drafts: tenant_user), decided in the run
  access: "write",
  handler: async (ctx, input) => runAgentFor(ctx, input.name, input.input),
});

/** Agents that can change data: template-generator saves its drafts as draft templates with create: true. */
const WRITING_AGENTS = new Set(["agent.template-generator"]);

export const agentOperations: Operation[] = exposedAgents().map((agent) =>
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
    handler: async (ctx, input) => runAgentFor(ctx, agent.name, input),
  }),
);

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  listAgentsOperation,
  listAgentSchemasOperation,
  runAgentOperation,
  ...agentOperations,
];
