#!/usr/bin/env node
// `node scripts/prod-smoke.mjs`: the production environment of wrangler.toml, served locally
// (`wrangler dev --env production`: its own bindings, prefixed queues, crons, vars; local D1/KV/Queues
// state in a throwaway folder, migrated with both folders the way `npm run db:migrate` does), then
// one pass through the product against it: bootstrap, location, template, a campaign send consumed
// by the SENDS queue, a click (CLICKS queue), feedback, a review ingested and answered, an MCP tool
// call and a cron sweep whose runs GET /admin/status then reports. CI runs it as its own step (.ci/run) so the rendered [env.production] cannot
// drift from what the tests cover (docs/deploy.md). Always stops wrangler; exits 1 on any failure.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { bootstrap } from "../bench/lib/bootstrap.mjs";
import { readRawConfig } from "./cloudflare/env-config.mjs";
import { migrate, runWrangler } from "./db-migrate.mjs";

const ENV = "production";
const root = path.resolve(import.meta.dirname, "..");
const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
const step = (what) => console.log(`[${elapsed()}] ${what}`);

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });

const state = mkdtempSync(path.join(tmpdir(), "prod-smoke-"));
let wrangler = null;
let log = "";

/** Stops wrangler and its workerd (their own process group), whatever happened. */
function stop() {
  if (wrangler && wrangler.exitCode === null && wrangler.signalCode === null) {
    try {
      process.kill(-wrangler.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  wrangler = null;
  rmSync(state, { recursive: true, force: true });
}
process.on("exit", stop);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

async function until(what, check, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => null);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function main() {
  const raw = readRawConfig(path.join(root, "wrangler.toml"));
  const prod = raw.env?.[ENV];
  if (!prod) throw new Error(`wrangler.toml has no [env.${ENV}]`);

  step("migrating the production environment's local databases (migrations/tenant, migrations/control)");
  await migrate({ raw, env: ENV, where: "--local", root, run: runWrangler, persistTo: state });

  const [port, inspectorPort] = [await freePort(), await freePort()];
  const base = `http://127.0.0.1:${port}`;
  step(`wrangler dev --env ${ENV} on ${base}`);
  // the secrets `npm run setup:cloudflare` would set; everything else is the section as committed.
  // BOOTSTRAP_SECRET is made per run as setup:cloudflare makes it: without one, a deployed environment
  // refuses POST /bootstrap (docs/SECURITY.md)
  const secrets = {
    JWT_SECRET: "prod-smoke-jwt-secret-0123456789-0123456789",
    ENCRYPTION_KEY: "cHJvZC1zbW9rZS1lbmNyeXB0aW9uLWtleS0zMi1ieXQ=",
    BOOTSTRAP_SECRET: randomBytes(32).toString("base64url"),
  };
  wrangler = spawn(
    "npx",
    [
      "--no-install",
      "wrangler",
      "dev",
      "--env",
      ENV,
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--inspector-port",
      String(inspectorPort),
      "--persist-to",
      state,
      "--test-scheduled",
      "--show-interactive-dev-session=false",
      ...Object.entries(secrets).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
    ],
    {
      cwd: root,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
    },
  );
  wrangler.stdout.on("data", (d) => (log += d));
  wrangler.stderr.on("data", (d) => (log += d));
  const exited = new Promise((_, reject) =>
    wrangler.on("exit", (code) => reject(new Error(`wrangler dev exited (${code})`))),
  );
  exited.catch(() => undefined);
  await Promise.race([until("GET /health", async () => (await fetch(`${base}/health`)).ok, 60_000), exited]);

  step("bootstrap, location, contact, template, campaign");
  const session = await bootstrap(
    base,
    { tenantName: "Smoke Dental", tenantSlug: "smoke-dental", adminEmail: "owner@smoke.test" },
    { secret: secrets.BOOTSTRAP_SECRET },
  );
  const api = async (method, p, body, expected = [200, 201]) => {
    const res = await fetch(`${base}${p}`, {
      method,
      headers: { ...session.headers, "content-type": "application/json" },
      body: body && JSON.stringify(body),
    });
    const json = res.status === 204 ? null : await res.json().catch(() => null);
    if (!expected.includes(res.status))
      throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json).slice(0, 400)}`);
    return json;
  };
  const location = await api("POST", "/v1/locations", { name: "Smoke Downtown", city: "Springfield" });
  await api("PUT", "/v1/compliance", { requireEmailConsent: false, quietHoursStart: "23:59", quietHoursEnd: "00:00" });
  const contact = await api("POST", "/v1/contacts", { email: "guest@smoke.test", firstName: "Guest" });
  const template = await api("POST", "/v1/templates", {
    name: "Smoke request",
    channel: "email",
    subject: "How did we do, {{firstName}}?",
    bodyHtml: '<p>Please review {{locationName}}: <a href="{{reviewLink}}">review</a></p>',
    bodyText: "Review us: {{reviewLink}}",
  });
  await api("POST", `/v1/templates/${template.id}/approve`);
  // the section's own vars are served: links are built on its PUBLIC_BASE_URL
  const preview = await api("GET", `/v1/templates/${template.id}/preview`);
  if (!preview.text.includes(`${prod.vars.PUBLIC_BASE_URL}/v1/r/`))
    throw new Error(`links not on [env.${ENV}]'s PUBLIC_BASE_URL: ${preview.text}`);
  const campaign = await api("POST", "/v1/campaigns", {
    name: "Smoke send",
    type: "one_time",
    channels: ["email"],
    locationId: location.id,
  });

  step("campaign send, consumed by the SENDS queue");
  const sent = await api("POST", `/v1/campaigns/${campaign.id}/send`, {
    locationId: location.id,
    channel: "email",
    templateId: template.id,
    contactIds: [contact.id],
  });
  if (sent.queued !== 1) throw new Error(`send queued ${JSON.stringify(sent)}`);
  const solicitationOf = async () => (await api("GET", `/v1/campaigns/${campaign.id}/solicitations`)).data[0];
  const solicitation = await until("the send to leave PENDING", async () => {
    const s = await solicitationOf();
    return s && s.status !== "PENDING" ? s : null;
  });
  if (solicitation.status !== "SENT")
    throw new Error(`the send ended ${solicitation.status}: ${solicitation.failureReason}`);

  step("click on the review link, recorded by the CLICKS queue");
  const click = await fetch(`${base}/v1/r/${solicitation.shortLinkToken}?redirect=1`, { redirect: "manual" });
  if (click.status !== 302) throw new Error(`short link answered ${click.status}`);
  await until(
    "the click to be recorded",
    async () => (await api("GET", `/v1/solicitations/${solicitation.id}`)).clickedAt,
  );

  step("feedback, review ingest, response");
  const feedback = await fetch(`${base}/v1/f/${solicitation.shortLinkToken}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ rating: 2, text: "The wait was long." }),
  });
  if (feedback.status !== 201) throw new Error(`feedback answered ${feedback.status}: ${await feedback.text()}`);
  const review = await api("POST", "/v1/reviews/ingest", {
    locationId: location.id,
    siteType: "google",
    externalReviewId: "smoke-1",
    rating: 5,
    text: "Lovely staff",
    authorName: "Pat",
  });
  const response = await api("POST", `/v1/reviews/${review.id}/responses`, { text: "Thank you, Pat!" });
  if (response.reviewId !== review.id) throw new Error(`response ${JSON.stringify(response)}`);

  step("MCP tool call");
  const mcp = new Client({ name: "prod-smoke", version: "1.0.0" });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: session.headers } }),
  );
  const tool = await mcp.callTool({ name: "location.list", arguments: {} });
  await mcp.close();
  if (tool.isError || !JSON.stringify(tool.structuredContent).includes(location.id))
    throw new Error(`location.list: ${JSON.stringify(tool).slice(0, 400)}`);

  step("cron sweep (*/5 * * * *)");
  const cron = await fetch(`${base}/__scheduled?cron=${encodeURIComponent("*/5 * * * *")}`);
  if (!cron.ok) throw new Error(`scheduled handler answered ${cron.status}: ${await cron.text()}`);

  step("GET /admin/status: the sweeps' runs are recorded, the queues and the shard are reported");
  const status = await api("GET", "/admin/status");
  const swept = status.sweeps.filter((s) => s.cron === "*/5 * * * *");
  const failed = swept.filter((s) => s.outcome !== "ok");
  if (!swept.length || failed.length)
    throw new Error(`sweeps: ${JSON.stringify(failed.length ? failed : status.sweeps).slice(0, 600)}`);
  if (status.queues.length < 6 || status.shards[0]?.tenants !== 1)
    throw new Error(`status: ${JSON.stringify(status).slice(0, 600)}`);
  console.log(
    `  ${swept.length} sweeps ok; queues waiting: ${status.queues.map((q) => `${q.queue}=${q.waiting ?? "n/a"}`).join(" ")}`,
  );

  step("production smoke passed");
}

try {
  await main();
} catch (e) {
  console.error(`prod-smoke failed after ${elapsed()}: ${e.message}`);
  console.error(`--- wrangler dev output (last 4,000 characters) ---\n${log.slice(-4000)}`);
  process.exitCode = 1;
} finally {
  stop();
}
