#!/usr/bin/env node
// The service as a user installs it (CI step "the user's set-up", docs/testing.md): in a fresh copy of this
// checkout (no .dev.vars, no local state), `npm run dev -- --port <free>` exactly as the README says, with
// .dev.vars written by dev.mjs's own writer, then:
// - the README's "first session with curl", executed from the README itself (its `B=` line takes $B);
// - integration credentials sealed with that ENCRYPTION_KEY and read back;
// - MCP through the official SDK clients: a 2025-11-25 session (initialize, tools/list, a tool call) and a
//   stateless 2026-07-28 call, each with an API key and with an OAuth token from dynamic client registration
//   and the authorization-code + PKCE flow, the sign-in and consent forms submitted by this script;
// - an invite mail and a password-reset mail read from the dev mailbox: their links on the served port.
// The ENCRYPTION_KEY always has "+" and "/" (dev.mjs's writer is asked again until it makes one: about three
// keys in four have one of them), the spelling that broke every MCP session on a fresh clone (#43).
import { execFileSync, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { writeDevVars } from "./lib/dev-vars.mjs";
import { freePort } from "./lib/free-port.mjs";

const root = path.resolve(import.meta.dirname, "..");
const started = performance.now();
const step = (what) => console.log(`[${((performance.now() - started) / 1000).toFixed(1)} s] ${what}`);
const check = (ok, what) => {
  if (!ok) throw new Error(what);
};

// ---- a fresh checkout: the tracked and new files of this one, node_modules linked (npm install is CI's first step)
const checkout = mkdtempSync(path.join(tmpdir(), "installed-smoke-"));
const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard", "-z"], { cwd: root, encoding: "utf8" })
  .split("\0")
  .filter(Boolean);
for (const f of files) {
  mkdirSync(path.dirname(path.join(checkout, f)), { recursive: true });
  try {
    cpSync(path.join(root, f), path.join(checkout, f));
  } catch {
    // a tracked file deleted in the work tree
  }
}
for (const dir of ["node_modules", "examples/node_modules"])
  symlinkSync(path.join(root, dir), path.join(checkout, dir));

let dev = null;
let log = "";
function stop() {
  if (dev?.pid) {
    try {
      process.kill(-dev.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
  dev = null;
  rmSync(checkout, { recursive: true, force: true });
}
process.on("exit", stop);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

async function until(what, probe, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function main() {
  for (let tries = 1; ; tries++) {
    writeDevVars(checkout);
    const key = /^ENCRYPTION_KEY=(.*)$/m.exec(readFileSync(path.join(checkout, ".dev.vars"), "utf8"))[1];
    if (key.includes("+") && key.includes("/")) {
      step(`.dev.vars by dev.mjs's writer: ENCRYPTION_KEY=${key} (${tries} tries to get "+" and "/")`);
      break;
    }
    unlinkSync(path.join(checkout, ".dev.vars"));
  }

  const port = await freePort();
  const base = `http://localhost:${port}`;
  step(`npm run dev -- --port ${port}`);
  dev = spawn("npm", ["run", "dev", "--", "--port", String(port)], {
    cwd: checkout,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
  });
  dev.stdout.on("data", (d) => (log += d));
  dev.stderr.on("data", (d) => (log += d));
  const exited = new Promise((_, reject) =>
    dev.on("exit", (code) => reject(new Error(`npm run dev exited (${code})`))),
  );
  exited.catch(() => undefined);
  await Promise.race([until("GET /health", async () => (await fetch(`${base}/health`)).ok, 240_000), exited]);

  step("the README's first session, run from the README");
  const readme = readFileSync(path.join(checkout, "README.md"), "utf8");
  const block = /## A first session with curl\s+```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  check(block, "README.md: no ```sh block under 'A first session with curl'");
  const out = execFileSync(
    "bash",
    ["-euo", "pipefail", "-c", `${block}\necho; echo "SMOKE TOKEN=$TOKEN"; echo "SMOKE TENANT=$TENANT"`],
    {
      cwd: checkout,
      env: { ...process.env, B: base },
      encoding: "utf8",
    },
  );
  const token = /^SMOKE TOKEN=(.+)$/m.exec(out)?.[1];
  const tenantId = /^SMOKE TENANT=(.+)$/m.exec(out)?.[1];
  check(token && tenantId, `the README's session gave no TOKEN or TENANT:\n${out}`);
  const api = async (method, p, body, expected = [200, 201]) => {
    const res = await fetch(`${base}${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "x-tenant-id": tenantId, "content-type": "application/json" },
      body: body && JSON.stringify(body),
    });
    const json = res.status === 204 ? null : await res.json().catch(() => null);
    check(expected.includes(res.status), `${method} ${p}: ${res.status} ${JSON.stringify(json)?.slice(0, 400)}`);
    return json;
  };
  const locations = await api("GET", "/v1/locations?limit=20");
  check(
    locations.data.some((l) => l.name === "Downtown"),
    `the README's location is missing: ${JSON.stringify(locations)}`,
  );
  const location = locations.data.find((l) => l.name === "Downtown");

  step("integration credentials sealed with that key, then read back");
  const integration = await api("POST", "/v1/integrations", {
    connectorType: "google",
    name: "Google Downtown",
    locationId: location.id,
    config: { accountId: "111", locationId: "222" },
    credentials: { accessToken: "ya29.smoke" },
  });
  check(integration.hasCredentials === true, `integration: ${JSON.stringify(integration)}`);
  // the update checks the connection against the stored credentials: they must open
  await api("PATCH", `/v1/integrations/${integration.id}`, { name: "Google Downtown (main)" });

  step("MCP with an API key: a 2025-11-25 session and a stateless 2026-07-28 call");
  const key = await api("POST", "/v1/api-keys", { name: "smoke", scopes: ["read:locations", "read:reviews"] });
  await mcpBoth(base, key.key, "API key");

  step("MCP with an OAuth token (dynamic registration, authorization code + PKCE, the forms submitted)");
  const accessToken = await oauthToken(base, { email: "owner@acme.test", password: "s3cure-passw0rd" });
  await mcpBoth(base, accessToken, "OAuth token");

  step("an invite and a password reset: the dev mailbox's links on the served port");
  await api("POST", "/v1/users/invite", { email: "front.desk@acme.test", name: "Front Desk", role: "tenant_user" });
  const forgot = await fetch(`${base}/auth/forgot-password`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "owner@acme.test" }),
  });
  check(forgot.status === 202 || forgot.status === 200, `forgot-password: ${forgot.status}`);
  const mails = await until("both mails in the dev mailbox", async () => {
    const box = await api("GET", "/admin/outbox?limit=20");
    const invite = box.data.find((m) => m.to === "front.desk@acme.test");
    const reset = box.data.find((m) => m.to === "owner@acme.test");
    return invite && reset ? { invite, reset } : null;
  });
  for (const [what, mail, page] of [
    ["invite", mails.invite, "/setup-password"],
    ["reset", mails.reset, "/reset-password"],
  ]) {
    const links = [...`${mail.text} ${mail.html}`.matchAll(/https?:\/\/[^\s"'<>]+/g)].map((m) => m[0]);
    const link = links.find((l) => new URL(l).pathname === page);
    check(link, `the ${what} mail has no ${page} link: ${links.join(", ")}`);
    check(new URL(link).origin === base, `the ${what} mail links to ${new URL(link).origin}, not ${base}`);
  }
  step("the user's set-up works");
}

/** The same credential over both MCP revisions: a session (2025-11-25) and a stateless call (2026-07-28). */
async function mcpBoth(base, credential, what) {
  const headers = { authorization: `Bearer ${credential}` };
  const session = new Client({ name: "installed-smoke", version: "1" });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } });
  await session.connect(transport);
  check(transport.protocolVersion === "2025-11-25", `${what}: session on ${transport.protocolVersion}`);
  const tools = await session.listTools();
  check(
    tools.tools.some((t) => t.name === "location.list"),
    `${what}: tools/list has no location.list`,
  );
  const listed = await session.callTool({ name: "location.list", arguments: {} });
  check(!listed.isError, `${what}: location.list failed: ${JSON.stringify(listed)}`);
  await session.close();

  const stateless = new ClientV2(
    { name: "installed-smoke", version: "1" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await stateless.connect(new TransportV2(new URL(`${base}/mcp`), { requestInit: { headers } }));
  const called = await stateless.callTool({ name: "location.list", arguments: {} });
  check(!called.isError, `${what}: 2026-07-28 location.list failed: ${JSON.stringify(called)}`);
  await stateless.close();
}

/** A cookie jar for the sign-in and consent forms (a form's session lives in a cookie). */
function jar() {
  const cookies = new Map();
  return {
    header: () => [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
    take(res) {
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(";");
        const i = pair.indexOf("=");
        cookies.set(pair.slice(0, i), pair.slice(i + 1));
      }
    },
  };
}

const hidden = (html, name) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];

async function oauthToken(base, user) {
  const redirect = "http://127.0.0.1:9/callback";
  const reg = await fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Installed Smoke",
      redirect_uris: [redirect],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }),
  });
  check(reg.status === 201, `register: ${reg.status} ${await reg.clone().text()}`);
  const { client_id } = await reg.json();
  const verifier = randomBytes(32).toString("base64url");
  const authorize = new URL(`${base}/oauth/authorize`);
  for (const [k, v] of Object.entries({
    response_type: "code",
    client_id,
    redirect_uri: redirect,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    scope: "read:locations read:reviews",
    state: "smoke",
    resource: `${base}/mcp`,
  }))
    authorize.searchParams.set(k, v);

  const cookies = jar();
  const submit = async (fields) => {
    const res = await fetch(authorize, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: base,
        cookie: cookies.header(),
      },
      body: new URLSearchParams(fields),
    });
    cookies.take(res);
    return res;
  };
  const page = await fetch(authorize, { redirect: "manual" });
  cookies.take(page);
  const signin = await page.text();
  check(page.status === 200, `authorize: ${page.status} ${signin.slice(0, 300)}`);
  const consent = await submit({ handle: hidden(signin, "handle"), step: "signin", ...user });
  const consentHtml = await consent.text();
  const tenant = /<option value="([^"]+)"/.exec(consentHtml)?.[1];
  check(tenant, `sign-in did not reach the consent form: ${consent.status} ${consentHtml.slice(0, 400)}`);
  const approved = await submit([
    ["handle", hidden(consentHtml, "handle")],
    ["ticket", hidden(consentHtml, "ticket")],
    ["step", "consent"],
    ["tenant", tenant],
    ["scope", "read:locations"],
    ["scope", "read:reviews"],
    ["decision", "approve"],
  ]);
  const location = approved.headers.get("location");
  check(approved.status === 302 && location?.startsWith(redirect), `consent: ${approved.status} ${location}`);
  const code = new URL(location).searchParams.get("code");
  const tokenRes = await fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirect,
      client_id,
      code_verifier: verifier,
      resource: `${base}/mcp`,
    }),
  });
  check(tokenRes.status === 200, `token: ${tokenRes.status} ${await tokenRes.clone().text()}`);
  return (await tokenRes.json()).access_token;
}

try {
  await main();
} catch (e) {
  console.error(`installed-smoke failed after ${((performance.now() - started) / 1000).toFixed(1)} s: ${e.stack ?? e}`);
  console.error(`--- npm run dev output (last 6,000 characters) ---\n${log.slice(-6000)}`);
  process.exitCode = 1;
} finally {
  stop();
}
