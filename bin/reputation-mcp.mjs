#!/usr/bin/env node
import { parseArgs } from "node:util";
// Local stdio bridge for desktop MCP clients that only launch local processes: JSON-RPC over
// stdin/stdout <-> the remote Streamable HTTP server at --url, authenticated with --api-key.
//   npx reputation-mcp --url https://api.example.com/mcp --api-key rk_...
// The key may also come from REPUTATION_API_KEY (keeps it out of the process list), the URL from
// REPUTATION_MCP_URL. Expired remote sessions (404) are re-initialized transparently.
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const USAGE = `usage: reputation-mcp --url <https://host/mcp> --api-key <key> [--tenant <tenantId>]
  --url       the remote MCP endpoint (or REPUTATION_MCP_URL)
  --api-key   an API key or other bearer credential (or REPUTATION_API_KEY)
  --tenant    x-tenant-id for credentials that reach several tenants (optional)`;

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    "api-key": { type: "string" },
    tenant: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
const url = values.url ?? process.env.REPUTATION_MCP_URL;
const apiKey = values["api-key"] ?? process.env.REPUTATION_API_KEY;
if (values.help || !url || !apiKey) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(values.help ? 0 : 2);
}

const log = (message, extra = {}) =>
  process.stderr.write(`${JSON.stringify({ bridge: "reputation-mcp", message, ...extra })}\n`);
const headers = { authorization: `Bearer ${apiKey}`, ...(values.tenant ? { "x-tenant-id": values.tenant } : {}) };

const local = new StdioServerTransport();
let remote;
let initialize = null; // the client's initialize request, replayed when the remote session expires
let clientInitId = null;
let internalSeq = 0;
const internal = new Map(); // ids of requests the bridge itself sent -> resolver

function connectRemote() {
  const t = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  t.onmessage = (message) => {
    if ("id" in message && internal.has(message.id)) {
      internal.get(message.id)(message);
      internal.delete(message.id);
      return;
    }
    if ("id" in message && message.id === clientInitId && message.result?.protocolVersion) {
      t.setProtocolVersion(message.result.protocolVersion);
    }
    local.send(message).catch((e) => log("stdout write failed", { error: String(e) }));
  };
  t.onerror = (e) => log("remote error", { error: String(e) });
  return t;
}

/** Opens a fresh remote session by replaying the client's initialize (its answer is not forwarded). */
async function reinitialize() {
  await remote.close().catch(() => {});
  remote = connectRemote();
  await remote.start();
  const id = `bridge-init-${++internalSeq}`;
  const answered = new Promise((resolve) => internal.set(id, resolve));
  await remote.send({ ...initialize, id });
  const reply = await answered;
  if (reply.error) throw new Error(`re-initialize failed: ${reply.error.message}`);
  remote.setProtocolVersion(reply.result.protocolVersion);
  await remote.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  log("remote session re-initialized");
}

async function forward(message) {
  if (message.method === "initialize") {
    initialize = message;
    clientInitId = message.id;
  }
  try {
    await remote.send(message);
  } catch (e) {
    if (e instanceof StreamableHTTPError && e.code === 404 && initialize && message.method !== "initialize") {
      await reinitialize();
      await remote.send(message);
      return;
    }
    throw e;
  }
}

local.onmessage = (message) => {
  forward(message).catch((e) => {
    log("request failed", { error: String(e) });
    if ("id" in message && message.method) {
      const status = e instanceof StreamableHTTPError ? e.code : undefined;
      local
        .send({
          jsonrpc: "2.0",
          id: message.id,
          error: { code: -32000, message: String(e.message ?? e), data: status ? { httpStatus: status } : undefined },
        })
        .catch(() => {});
    }
  });
};

let closing = false;
async function shutdown() {
  if (closing) return;
  closing = true;
  await remote?.terminateSession().catch(() => {});
  await remote?.close().catch(() => {});
  process.exit(0);
}
local.onclose = shutdown;
process.stdin.on("end", shutdown);
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);

remote = connectRemote();
await remote.start();
await local.start();
