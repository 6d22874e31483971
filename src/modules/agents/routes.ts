import { createRoute, z } from "@hono/zod-openapi";
import {
  createRouter,
  errors,
  json,
  jsonBody,
  type Router,
  stdErrors,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { AgentNameParam, AgentRunBody, AgentSchemasSchema, agentJsonSchemas } from "./schemas";
import { listAgents, runAgentFor } from "./service";
import { callerScopes } from "./tools";
import { AgentRunResultSchema, agentMayWrite } from "./types";

const tags = ["Agents"];

const AgentListSchema = z
  .object({
    data: z.array(
      z.object({ name: z.string(), title: z.string(), description: z.string(), tools: z.array(z.string()) }),
    ),
  })
  .openapi("AgentList");

const list = createRoute({
  method: "get",
  path: "/v1/agents",
  tags,
  security: TENANT_SECURITY,
  summary: "List the agents",
  operationId: "listAgents",
  responses: { 200: json(AgentListSchema), ...stdErrors },
});

const schemas = createRoute({
  method: "get",
  path: "/v1/agents/schemas",
  tags,
  security: TENANT_SECURITY,
  summary: "Input and output schemas of every agent",
  operationId: "listAgentSchemas",
  responses: { 200: json(AgentSchemasSchema), ...stdErrors },
});

const run = createRoute({
  method: "post",
  path: "/v1/agents/{name}/run",
  operationId: "runAgent",
  tags,
  security: TENANT_SECURITY,
  summary: "Run an agent (any role; saving template drafts needs tenant_user)",
  description:
    "Runs the agent with the llm engine when Workers AI is configured, else the rules engine. 60 s timeout (504 TIMEOUT); audited.",
  request: { params: AgentNameParam, body: jsonBody(AgentRunBody) },
  responses: {
    200: json(AgentRunResultSchema),
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
});

export const agentRoutes: Router = createRouter()
  .openapi(list, async (c) => c.json(listAgents(), 200))
  .openapi(schemas, async (c) => c.json(agentJsonSchemas(), 200))
  .openapi(run, async (c) => {
    // the access tenantContext resolved (the one check, identity/access.ts)
    const access = {
      canWrite: agentMayWrite(c.var.access),
      access: c.var.access,
      scopes: callerScopes(c.var.principal),
    };
    return c.json(await runAgentFor(svc(c), access, c.req.valid("param").name, c.req.valid("json")), 200);
  });
