import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, InitializeRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS, SERVER_INFO } from "./config";
import { allSkills, annotations, inputJsonSchema, skillAllowed } from "./skills/registry";
import { callTool, type CallEnv } from "./skills/run";
import "./skills";

const INSTRUCTIONS =
  "Reputation operations for one business (tenant): locations, reviews, inbox, campaigns, contacts and more. " +
  "Each tool says what it returns; lists are newest first and paged with `cursor` where offered. " +
  "Agency sessions can act for any tenant of the agency: call agency.list-tenants, then pass tenantId.";

export const negotiateVersion = (requested: unknown): string =>
  typeof requested === "string" && (PROTOCOL_VERSIONS as readonly string[]).includes(requested) ? requested : LATEST_PROTOCOL_VERSION;

/**
 * A fresh SDK server for one HTTP request, bound to the session's identity. Sessions live in the
 * tenant's Durable Object, not in this object, so any isolate can serve any request.
 * The low-level Server (not McpServer) is used because tools are listed per caller's scopes and
 * validated with the project's own zod schemas.
 */
export function buildServer(call: CallEnv): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
  server.setRequestHandler(InitializeRequestSchema, (req) => ({
    protocolVersion: negotiateVersion(req.params.protocolVersion),
    capabilities: { tools: { listChanged: false } },
    serverInfo: SERVER_INFO,
    instructions: INSTRUCTIONS,
  }));
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: allSkills()
      .filter((s) => skillAllowed(s, call.identity))
      .map((s) => ({ name: s.name, title: s.title, description: s.description, inputSchema: inputJsonSchema(s), annotations: annotations(s) })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (req) => callTool(req.params.name, req.params.arguments, call));
  return server;
}
