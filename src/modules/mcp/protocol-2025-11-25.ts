import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { listAppResources, readAppResource } from "./apps/cards";
import { LATEST_SESSION_VERSION, SESSION_PROTOCOL_VERSIONS } from "./config";
import { CAPABILITIES, INSTRUCTIONS, listedTools, serverInfo } from "./server";
import { type CallEnv, callTool } from "./skills/run";

// The session leg: 2025-11-25 (the newest, which names the file), 2025-06-18 and 2025-03-26.
// The stateless 2026-07-28 leg is protocol-2026-07-28.ts; what both share is server.ts.
export const negotiateVersion = (requested: unknown): string =>
  typeof requested === "string" && (SESSION_PROTOCOL_VERSIONS as readonly string[]).includes(requested)
    ? requested
    : LATEST_SESSION_VERSION;

/**
 * The session leg (2025-11-25, 2025-06-18, 2025-03-26): a fresh SDK 1.x server for one HTTP request,
 * bound to the session's identity. Sessions live in the tenant's Durable Object, not in this object,
 * so any isolate can serve any request. The low-level Server (not McpServer) is used because tools
 * are listed per caller's scopes and validated with the project's own zod schemas.
 */
export function buildSessionServer(call: CallEnv): Server {
  const server = new Server(serverInfo(call.env), { capabilities: CAPABILITIES, instructions: INSTRUCTIONS });
  server.setRequestHandler(InitializeRequestSchema, (req) => ({
    protocolVersion: negotiateVersion(req.params.protocolVersion),
    capabilities: CAPABILITIES,
    serverInfo: serverInfo(call.env),
    instructions: INSTRUCTIONS,
  }));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools(call) }));
  // the MCP Apps cards (apps/cards.ts): static HTML, the data comes from the tool results
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: listAppResources() }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));
  server.setRequestHandler(ReadResourceRequestSchema, (req) => {
    const read = readAppResource(req.params.uri);
    // -32002: the spec's "Resource not found"
    if (!read) throw new McpError(-32002, "Resource not found", { uri: req.params.uri });
    return read;
  });
  // no elicitation on this leg: the answer would arrive on another HTTP request, maybe another isolate
  server.setRequestHandler(CallToolRequestSchema, (req) =>
    callTool(req.params.name, req.params.arguments, call, { canAsk: false }),
  );
  return server;
}
