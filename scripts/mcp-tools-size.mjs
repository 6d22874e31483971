#!/usr/bin/env node
// `npm run mcp:tools-size` (node scripts/mcp-tools-size.mjs): measures what tools/list costs an
// assistant's context: the JSON of the tools (bytes) and an estimate of its tokens (gpt-tokenizer,
// o200k_base), for the whole list, for /mcp/readonly and for each toolset (?toolsets=<name>), as
// served by the built Worker.
//
// It builds the Worker, serves it from workerd (bench/lib/server.mjs), bootstraps a tenant and mints
// an API key with every scope (so every tool a tenant's key can see is counted; the agency-session
// and platform-admin tools, one each, are not), and asks tools/list over the 2026-07-28 wire.
//
//   node scripts/mcp-tools-size.mjs            prints the Markdown table
//   node scripts/mcp-tools-size.mjs --write    also replaces the table in docs/mcp.md (between the markers)
//   node scripts/mcp-tools-size.mjs --check    exits 1 when docs/mcp.md's table differs from the measurement
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { bootstrap } from "../bench/lib/bootstrap.mjs";
import { startServer } from "../bench/lib/server.mjs";

const root = path.resolve(import.meta.dirname, "..");
const DOC = path.join(root, "docs/mcp.md");
const START = "<!-- mcp-tools-size:start (scripts/mcp-tools-size.mjs --write) -->";
const END = "<!-- mcp-tools-size:end -->";
const { values: opts } = parseArgs({
  options: { write: { type: "boolean", default: false }, check: { type: "boolean", default: false } },
});

const freePort = () =>
  new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });

async function postJson(url, body, headers = {}) {
  const init = {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  };
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

/**
 * Every scope an API key can hold, read from their one definition (src/modules/identity/scopes.ts
 * API_SCOPES; a plain Node script cannot import TypeScript).
 */
function apiScopes() {
  const source = readFileSync(path.join(import.meta.dirname, "../src/modules/identity/scopes.ts"), "utf8");
  const list = /export const API_SCOPES = \[([^\]]*)\]/.exec(source)?.[1];
  if (!list) throw new Error("src/modules/identity/scopes.ts: API_SCOPES not found");
  return [...list.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}

/** A tenant and an API key with every scope a key can hold. */
async function seed(base) {
  const { headers: auth } = await bootstrap(base, {
    tenantName: "Tools Size Dental",
    tenantSlug: "tools-size-dental",
    adminEmail: "owner@tools-size.test",
  });
  const scopes = apiScopes();
  return (await postJson(`${base}/v1/api-keys`, { name: "tools/list size", scopes }, auth)).key;
}

/** The tools of a 2026-07-28 tools/list at `pathAndQuery`. */
async function listTools(base, key, pathAndQuery) {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "tools-size", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const request = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta } };
  const body = await postJson(`${base}${pathAndQuery}`, request, {
    authorization: `Bearer ${key}`,
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/list",
  });
  if (!body.result) throw new Error(`${pathAndQuery}: ${JSON.stringify(body.error)}`);
  return body.result.tools;
}

/** What the tools cost: their JSON as served (compact), and its tokens. */
const measure = (tools) => {
  const json = JSON.stringify(tools);
  return { tools: tools.length, bytes: Buffer.byteLength(json), tokens: countTokens(json) };
};

const n = (x) => x.toLocaleString("en-US");
const share = (m, full) => `${Math.round((100 * m.tokens) / full.tokens)}%`;
const row = (label, m, full) => `| ${label} | ${m.tools} | ${n(m.bytes)} | ${n(m.tokens)} | ${share(m, full)} |`;

function table(rows, full, largest) {
  return [
    "| Selection | Tools | Bytes (JSON) | Tokens (o200k_base) | Of the full list |",
    "|---|---|---|---|---|",
    row("`/mcp` (every tool)", full, full),
    ...rows.map(([label, m]) => row(label, m, full)),
    "",
    `Largest tools (tokens): ${largest.map(([name, m]) => `\`${name}\` ${n(m.tokens)}`).join(", ")}.`,
  ].join("\n");
}

async function main() {
  const port = await freePort();
  const outdir = mkdtempSync(path.join(tmpdir(), "reputation-ops-tools-size-build-"));
  // a fixed base URL: the tools' icon URLs are part of what is measured, the random port is not
  const worker = await startServer({ port, outdir, vars: { PUBLIC_BASE_URL: "http://localhost:8787" } });
  try {
    const key = await seed(worker.url);
    const all = await listTools(worker.url, key, "/mcp");
    const full = measure(all);
    const toolsets = [...new Set(all.map((t) => t.name.split(".")[0]))].sort();
    const rows = [["`/mcp/readonly`", measure(await listTools(worker.url, key, "/mcp/readonly"))]];
    for (const set of toolsets) {
      rows.push([`\`?toolsets=${set}\``, measure(await listTools(worker.url, key, `/mcp?toolsets=${set}`))]);
    }
    const largest = all
      .map((t) => [t.name, measure([t])])
      .sort((a, b) => b[1].tokens - a[1].tokens)
      .slice(0, 5);
    const out = table(rows, full, largest);
    console.log(out);
    const doc = readFileSync(DOC, "utf8");
    const [before, rest] = doc.split(START);
    if (rest === undefined) throw new Error(`docs/mcp.md has no ${START} marker`);
    const after = rest.slice(rest.indexOf(END));
    const next = `${before}${START}\n${out}\n${after}`;
    if (opts.check && next !== doc) {
      console.error("docs/mcp.md's tools/list table differs from this measurement: npm run mcp:tools-size -- --write");
      process.exitCode = 1;
    }
    if (opts.write) writeFileSync(DOC, next);
  } finally {
    await worker.mf.dispose();
  }
}

await main();
