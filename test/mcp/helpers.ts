import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Env } from "../../src/env";
import app from "../../src/index";
import { newId } from "../../src/lib/ids";
import { registerAuthenticator } from "../../src/middleware/auth";
import type { ApiKeyPrincipal } from "../../src/modules/identity/access";

export const BASE = "http://localhost:8787";
export const MCP_URL = new URL(`${BASE}/mcp`);
/** The read-only endpoint: only tools annotated readOnlyHint (docs/mcp.md, Read-only endpoint). */
export const MCP_READONLY_URL = new URL(`${BASE}/mcp/readonly`);
const worker = (exports as unknown as { default: Fetcher }).default;

/** fetch for the SDK's transports: every request goes through the Worker's real fetch handler. */
export const workerFetch = (input: string | URL | Request, init?: RequestInit) =>
  worker.fetch(new Request(input instanceof URL ? input.href : input, { ...init, redirect: "manual" }));

/**
 * The same Worker fetch handler with some vars overridden (e.g. a lower MCP_RATE_LIMIT); the
 * bindings (D1, KV, the Durable Objects) stay the real ones.
 */
export const fetchWithEnv =
  (overrides: Partial<Env>) =>
  async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const req = new Request(input instanceof URL ? input.href : input, { ...init, redirect: "manual" });
    return app.fetch(req as Parameters<typeof app.fetch>[0], { ...env, ...overrides } as Env, createExecutionContext());
  };

/**
 * Test-only stand-in for [agency]'s API keys: the same Principal shape ({kind: "api_key", keyId,
 * tenantId, scopes}) through the same registry seam. Deleting a key from the map revokes it.
 */
export const testKeys = new Map<string, ApiKeyPrincipal>();
registerAuthenticator({
  name: "test-api-key",
  claims: (token) => token.startsWith("testkey_"),
  authenticate: async (token) => {
    const principal = testKeys.get(token);
    return principal ? { principal } : null;
  },
});

export function mintTestKey(tenantId: string, scopes: string[]) {
  const keyId = newId();
  const token = `testkey_${newId()}${newId()}`;
  testKeys.set(token, { kind: "api_key", keyId, tenantId, scopes });
  return { token, keyId };
}

export interface ConnectOptions {
  token?: string;
  headers?: Record<string, string>;
  authProvider?: OAuthClientProvider;
  fetch?: typeof workerFetch;
  /** another MCP endpoint (MCP_READONLY_URL), with any query such as ?toolsets= */
  url?: URL;
}

/** An MCP SDK client connected to the Worker's /mcp over Streamable HTTP. */
export async function connect(o: ConnectOptions = {}) {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  const transport = new StreamableHTTPClientTransport(o.url ?? MCP_URL, {
    fetch: o.fetch ?? workerFetch,
    requestInit: { headers },
    authProvider: o.authProvider,
  });
  const client = new Client({ name: "vitest", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

/**
 * The official v2 client (@modelcontextprotocol/client): pinned to 2026-07-28 it is stateless
 * (server/discover, no session); in legacy mode it opens a 2025-11-25 session.
 */
export async function connectV2(o: {
  token: string;
  url?: URL;
  headers?: Record<string, string>;
  mode?: "legacy" | "auto" | { pin: string };
}) {
  const headers = { ...o.headers, authorization: `Bearer ${o.token}` };
  const transport = new TransportV2(o.url ?? MCP_URL, { fetch: workerFetch, requestInit: { headers } });
  const mode = o.mode ?? { pin: "2026-07-28" };
  const client = new ClientV2({ name: "v2-test", version: "1" }, { versionNegotiation: { mode } });
  await client.connect(transport);
  return { client, transport };
}

/** A raw JSON-RPC POST to /mcp (for status codes and headers the SDK client hides). */
export async function rawPost(body: unknown, headers: Record<string, string> = {}, fetcher = workerFetch) {
  return fetcher(`${BASE}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
}

export const initializeBody = (protocolVersion = "2025-06-18", id = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

/** A 2026-07-28 (stateless) request of any method to `path` (/mcp, /mcp/readonly, with a query), as raw JSON-RPC. */
export function statelessRequest(
  token: string,
  path: string,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const named: Record<string, string> = method === "tools/call" ? { "mcp-name": String(params.name) } : {};
  return workerFetch(`${BASE}${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...named,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta } }),
  });
}

/** The JSON a tool returned in its structuredContent. */
export const structured = <T = any>(result: unknown) => (result as { structuredContent: T }).structuredContent;

/** A 2026-07-28 (stateless) tools/call; `capabilities` is what the client declares in this request's envelope. */
export async function statelessCall(
  token: string,
  name: string,
  args: Record<string, unknown>,
  o: { capabilities?: object; extra?: Record<string, unknown>; fetcher?: typeof workerFetch } = {},
) {
  const res = await rawPost(
    {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name,
        arguments: args,
        ...o.extra,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": o.capabilities ?? {},
        },
      },
    },
    {
      authorization: `Bearer ${token}`,
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
    o.fetcher,
  );
  return { status: res.status, result: ((await res.json()) as any).result };
}

/**
 * The confirm page's link a confirmation refusal carries (a client without form elicitation: no code, only
 * the link; docs/mcp.md "Confirmation"), or undefined when the result is not one.
 */
export function confirmationLink(result: unknown): string | undefined {
  const r = result as { isError?: boolean; content?: { text?: string }[] } | undefined;
  if (!r?.isError || typeof r.content?.[0]?.text !== "string") return undefined;
  try {
    return (JSON.parse(r.content[0].text) as { confirmation?: { url?: string } }).confirmation?.url;
  } catch {
    return undefined;
  }
}

/** The tenant and ask id a confirm page's link names. */
export function askOfLink(link: string): { tenantId: string; id: string } {
  const m = /\/app\/t\/([^/]+)\/confirm\/([A-Za-z0-9_-]{32})$/.exec(new URL(link).pathname);
  if (!m) throw new Error(`not a confirm page link: ${link}`);
  return { tenantId: decodeURIComponent(m[1]!), id: m[2]! };
}

/**
 * A person's "Confirm" on the confirm page, for tests about something else: the decision the page records
 * (the tenant's Durable Object), without signing in. The page itself, and who may use it, are tested over
 * HTTP in test/mcp/confirm-in-browser.test.ts and test/console/confirm.test.ts.
 */
export async function confirmInBrowser(link: string, by = "test-person") {
  const { tenantId, id } = askOfLink(link);
  const decided = await env.MCP_SESSIONS.get(env.MCP_SESSIONS.idFromName(tenantId)).decideInBrowser(id, "confirm", by);
  if (decided !== "confirmed") throw new Error(`the ask could not be confirmed: ${decided}`);
}

/**
 * A call to a tool that asks for confirmation, made as a client without elicitation makes it once the
 * user agreed: the refusal carries the confirm page's link, a person confirms there, the same call again
 * runs. Any other result is returned as is.
 */
export async function callConfirmed(client: Client, name: string, args: Record<string, unknown>) {
  const first = await client.callTool({ name, arguments: args });
  const link = confirmationLink(first);
  if (!link) return first;
  await confirmInBrowser(link);
  return client.callTool({ name, arguments: args });
}

/** The same on the stateless leg. */
export async function statelessConfirmed(
  token: string,
  name: string,
  args: Record<string, unknown>,
  o: Parameters<typeof statelessCall>[3] = {},
) {
  const first = await statelessCall(token, name, args, o);
  const link = confirmationLink(first.result);
  if (!link) return first;
  await confirmInBrowser(link);
  return statelessCall(token, name, args, o);
}

/** Reads JSON-RPC messages off an SSE response body, one at a time. */
export function sseMessages(res: Response) {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return async function next(): Promise<any | null> {
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split("\n")
          .filter((l) => l.startsWith("data:"))
          .map((l) => l.slice(5).trimStart())
          .join("\n");
        if (data) return JSON.parse(data);
        continue; // a comment (keep-alive) or a priming event
      }
      const { value, done } = await reader.read();
      if (done) return null;
      buffer += value;
    }
  };
}
