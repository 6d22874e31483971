import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, InitializeRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { baseUrl } from "../../lib/urls";
import { LATEST_SESSION_VERSION, SESSION_PROTOCOL_VERSIONS, SERVER_INFO } from "./config";
import { byName, EVERY_TOOL, inSelection, usableSelection } from "./toolsets";
import { allSkills, icons, skillAllowed, toolDefinition } from "./skills/registry";
import { callTool, type CallEnv } from "./skills/run";

export { SERVER_INFO };

export const INSTRUCTIONS =
  "Reputation operations for one business (tenant): locations, reviews, inbox, campaigns, contacts and more. " +
  "Each tool says what it returns; lists are newest first and paged with `cursor` where offered. " +
  "Agency sessions can act for any tenant of the agency: call agency.list-tenants, then pass tenantId. " +
  "Tools that change something outside a read ask the user to confirm first.";

/** How long a client may cache tools/list (2026-07-28 ttlMs): the list changes only with a deployment. */
export const TOOLS_TTL_MS = 5 * 60 * 1000;

export const negotiateVersion = (requested: unknown): string =>
  typeof requested === "string" && (SESSION_PROTOCOL_VERSIONS as readonly string[]).includes(requested) ? requested : LATEST_SESSION_VERSION;

/**
 * The tools this caller may see in this request's selection (endpoint, toolsets, single tools), sorted
 * by name, with input and output schemas, annotations and icons.
 */
export const listedTools = (call: Pick<CallEnv, "identity" | "env" | "selection">) => {
  const selection = usableSelection(call.selection ?? EVERY_TOOL);
  return allSkills()
    .filter((s) => skillAllowed(s, call.identity) && inSelection(s, selection))
    .sort((a, b) => byName(a.name, b.name))
    .map((s) => toolDefinition(s, baseUrl(call.env)));
};

export const serverInfo = (env: CallEnv["env"]) => ({ ...SERVER_INFO, icons: icons(baseUrl(env)) });

/**
 * The session leg (2025-11-25, 2025-06-18, 2025-03-26): a fresh SDK 1.x server for one HTTP request,
 * bound to the session's identity. Sessions live in the tenant's Durable Object, not in this object,
 * so any isolate can serve any request. The low-level Server (not McpServer) is used because tools
 * are listed per caller's scopes and validated with the project's own zod schemas.
 */
export function buildServer(call: CallEnv): Server {
  const server = new Server(serverInfo(call.env), { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
  server.setRequestHandler(InitializeRequestSchema, (req) => ({
    protocolVersion: negotiateVersion(req.params.protocolVersion),
    capabilities: { tools: { listChanged: false } },
    serverInfo: serverInfo(call.env),
    instructions: INSTRUCTIONS,
  }));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools(call) }));
  // no elicitation on this leg: the answer would arrive on another HTTP request, maybe another isolate
  server.setRequestHandler(CallToolRequestSchema, (req) => callTool(req.params.name, req.params.arguments, call, { canAsk: false }));
  return server;
}
