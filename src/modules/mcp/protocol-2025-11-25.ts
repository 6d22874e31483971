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
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
import { listAppResources, readAppResource } from "./apps/cards";
import { LATEST_SESSION_VERSION, SESSION_PROTOCOL_VERSIONS } from "./config";
import { askUser, notifyCompleted, type SessionAsk } from "./elicitation";
import { CAPABILITIES, INSTRUCTIONS, listedTools, serverInfo } from "./server";
import { type CallEnv, callTool } from "./skills/run";

/** How a session's client can be asked: a form, or (URL mode only) a page to open. */
export interface SessionElicitation {
  protocolVersion: string;
  form: boolean;
}

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
export function buildSessionServer(
  call: CallEnv,
  /**
   * the session's client declared elicitation (form, or URL mode only) and this response is an SSE stream
   * (http.ts `serve`)
   */
  elicit?: SessionElicitation,
): Server {
  const server = new Server(serverInfo(call.env), {
    capabilities: CAPABILITIES,
    instructions: INSTRUCTIONS,
    // the Workers validator the 2026-07-28 leg's SDK (2.x) already bundles: without it the 1.x Server
    // builds an ajv instance per request, and ajv with its formats (~290 kB, aliased away in
    // wrangler.toml) would be compiled at every isolate's start-up (docs/performance.md)
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
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
  server.setRequestHandler(CallToolRequestSchema, (req, extra) => {
    if (!elicit) return callTool(req.params.name, req.params.arguments, call, { canAsk: false });
    // the question goes out on this call's stream; the answer arrives on another POST, maybe in another
    // isolate, and reaches us through the session's Durable Object (elicitation.ts)
    const asking: SessionAsk = {
      env: call.env,
      identity: call.identity,
      sessionId: call.sessionId,
      protocolVersion: elicit.protocolVersion,
      timeoutMs: call.limits.elicitationTimeoutMs,
      send: (m) => server.transport!.send(m, { relatedRequestId: extra.requestId }),
    };
    const work = callTool(
      req.params.name,
      req.params.arguments,
      call,
      elicit.form
        ? { canAsk: false, elicit: (message) => askUser(asking, message) }
        : {
            // URL mode only: the user is sent to the console's confirm page (skills/run.ts browserGate)
            canAsk: false,
            elicitUrl: (message, url, elicitationId) => askUser(asking, message, { url, elicitationId }),
            completed: (elicitationId) => notifyCompleted(asking, elicitationId),
          },
    );
    // an accepted write finishes (and is audited) even if the client drops the stream meanwhile
    call.defer(work.catch(() => undefined)); // a rejection is the JSON-RPC error the SDK sends on the stream
    return work;
  });
  return server;
}
