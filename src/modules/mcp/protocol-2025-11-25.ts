import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { LATEST_SESSION_VERSION, SESSION_PROTOCOL_VERSIONS } from "./config";
import { INSTRUCTIONS, listedTools, serverInfo } from "./server";
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
  const server = new Server(serverInfo(call.env), {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler(InitializeRequestSchema, (req) => ({
    protocolVersion: negotiateVersion(req.params.protocolVersion),
    capabilities: { tools: { listChanged: false } },
    serverInfo: serverInfo(call.env),
    instructions: INSTRUCTIONS,
  }));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools(call) }));
  // no elicitation on this leg: the answer would arrive on another HTTP request, maybe another isolate
  server.setRequestHandler(CallToolRequestSchema, (req) =>
    callTool(req.params.name, req.params.arguments, call, { canAsk: false }),
  );
  return server;
}
