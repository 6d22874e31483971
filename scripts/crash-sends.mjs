#!/usr/bin/env node
// `node scripts/crash-sends.mjs [--contacts 2000] [--kill-after-batches 4] [--keep-state]`
//
// Crash truth, tried as an operator would (docs/RELIABILITY.md, "Hard kill during a campaign send"):
// a campaign send to 2,000 contacts through `wrangler dev` (the outbox provider, on a local state
// directory of its own), `wrangler dev` killed hard (SIGKILL of its whole process group, workerd
// included) while the SENDS consumer is working, restarted on the same state, then the 5-minute
// sweep run once with the clock 31 minutes on, and once a day later. Counts, from the databases:
// lost (a solicitation not BLOCKED with no outbox message), doubled (more than one outbox message),
// left PENDING, false failures (FAILED with an outbox message), outcome unknown.
// Not part of `npm test`: it takes a minute or two and starts wrangler twice.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readRawConfig } from "./cloudflare/env-config.mjs";
import { migrate, parseExecuteJson } from "./db-migrate.mjs";
import { generateSecrets, printSecretsOnFailure } from "./lib/secrets.mjs";

const root = path.resolve(import.meta.dirname, "..");
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const CONTACTS = Number(arg("contacts", "2000"));
const KILL_AFTER_BATCHES = Number(arg("kill-after-batches", "4"));
const port = 9100 + Math.floor(Math.random() * 800);
const base = `http://127.0.0.1:${port}`;
const state = mkdtempSync(path.join(tmpdir(), "crash-sends-"));
const secrets = generateSecrets(["JWT_SECRET", "ENCRYPTION_KEY"]);
printSecretsOnFailure("crash-sends", secrets);
const vars = [
  ...Object.entries(secrets).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
  "--var",
  `PUBLIC_BASE_URL:${base}`,
];
const wranglerEnv = { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" };
const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

function wrangler(args) {
  const r = spawnSync("npx", ["--no-install", "wrangler", ...args], {
    cwd: root,
    env: wranglerEnv,
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`wrangler ${args.slice(0, 3).join(" ")} failed: ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** One SQL query on every local database (the control database = shard 0, and SHARD_1), rows merged. */
const DATABASES = ["DB", "SHARD_1"];
const query = (sql) =>
  DATABASES.flatMap((db) =>
    parseExecuteJson(wrangler(["d1", "execute", db, "--local", "--persist-to", state, "--json", "--command", sql])),
  );

/** `wrangler dev` in a process group of its own; `batches` counts the SENDS batches it reported. */
function startDev(label) {
  const child = spawn(
    "npx",
    ["--no-install", "wrangler", "dev", "--port", String(port), "--ip", "127.0.0.1", "--persist-to", state, ...vars],
    {
      cwd: root,
      env: wranglerEnv,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const dev = { child, batches: 0, lastBatchAt: 0, output: "" };
  const read = (d) => {
    const text = String(d);
    dev.output = (dev.output + text).slice(-20_000);
    // eslint-disable-next-line no-control-regex
    // biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colour codes (ESC [ ... m)
    for (const line of text.replace(/\x1b\[[0-9;]*m/g, "").split("\n")) {
      if (/QUEUE\s+sends\b/i.test(line)) {
        dev.batches++;
        dev.lastBatchAt = Date.now();
      }
    }
  };
  child.stdout.on("data", read);
  child.stderr.on("data", read);
  child.on("exit", (code, signal) => log(`wrangler dev (${label}) exited`, signal ?? code));
  return dev;
}

const killGroup = (dev, signal) => {
  try {
    process.kill(-dev.child.pid, signal);
  } catch {
    // already gone
  }
};
const exited = (dev) =>
  new Promise((r) => (dev.child.exitCode !== null || dev.child.signalCode !== null ? r() : dev.child.once("exit", r)));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitUntil(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => false);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}
const healthy = () =>
  waitUntil(async () => (await fetch(`${base}/health`)).ok, 120_000, "wrangler dev to answer /health");
/** No SENDS batch reported for `quietMs`. */
const quiet = (dev, quietMs = 6_000) =>
  waitUntil(
    async () => Date.now() - Math.max(dev.lastBatchAt, startedQuietWait) > quietMs,
    300_000,
    "the SENDS queue to go quiet",
  );
let startedQuietWait = 0;

async function api(headers, method, p, body, form) {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: form ? headers : { ...headers, "content-type": "application/json" },
    body: form ?? (body && JSON.stringify(body)),
  });
  const json = await res.json().catch(() => null);
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

/** The 5-minute cron as the runtime would fire it, at a chosen time. */
async function sweep(at) {
  const res = await fetch(
    `${base}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent("*/5 * * * *")}&time=${at.getTime()}`,
  );
  if (!res.ok) throw new Error(`scheduled handler: ${res.status} ${await res.text()}`);
}

/** Every count in one query per database (each `wrangler d1 execute` starts a runtime: seconds). */
function counts(campaignId) {
  const c = `'${campaignId}'`;
  const mine = `select id from solicitations where campaign_id = ${c}`;
  const hasOutbox = "exists (select 1 from outbox_messages o where o.solicitation_id = s.id)";
  const sql = `select
    (select json_group_object(k, n) from (select status || coalesce('/' || delivery_outcome, '') as k, count(*) as n from solicitations where campaign_id = ${c} group by k)) as byState,
    (select count(*) from outbox_messages where solicitation_id in (${mine})) as outboxMessages,
    (select count(*) from solicitations s where campaign_id = ${c} and status <> 'BLOCKED' and not ${hasOutbox}) as lost,
    (select count(*) from (select solicitation_id from outbox_messages where solicitation_id in (${mine}) group by solicitation_id having count(*) > 1)) as doubled,
    (select count(*) from solicitations where campaign_id = ${c} and status = 'PENDING') as pending,
    (select count(*) from solicitations s where campaign_id = ${c} and status = 'FAILED' and ${hasOutbox}) as falseFailures,
    (select count(*) from solicitations where campaign_id = ${c} and delivery_outcome = 'unknown') as outcomeUnknown,
    (select count(*) from send_records r where r.solicitation_id in (${mine}) and r.provider_message_id is null) as claimsWithoutReceipt,
    (select count(*) from send_records r join solicitations s on s.id = r.solicitation_id where s.campaign_id = ${c} and s.status = 'PENDING') as pendingWithClaim`;
  const out = { byState: {} };
  for (const row of query(sql.replace(/\s+/g, " "))) {
    for (const [k, v] of Object.entries(row)) {
      if (k === "byState")
        for (const [s, n] of Object.entries(JSON.parse(v ?? "{}"))) out.byState[s] = (out.byState[s] ?? 0) + n;
      else out[k] = (out[k] ?? 0) + Number(v);
    }
  }
  return out;
}

async function main() {
  log(`state ${state}, port ${port}`);
  const run = async (args) => wrangler(args);
  await migrate({
    raw: readRawConfig(path.join(root, "wrangler.toml")),
    where: "--local",
    root,
    run,
    persistTo: state,
  });

  let dev = startDev("first");
  await healthy();
  const boot = await api({}, "POST", "/bootstrap", {
    tenantName: "Crash Co",
    tenantSlug: "crash-co",
    adminEmail: "crash@example.test",
    adminPassword: "crash-password-1",
    adminName: "Crash",
  });
  const h = { authorization: `Bearer ${boot.token}`, "x-tenant-id": boot.tenant.id };
  const location = await api(h, "POST", "/v1/locations", { name: "Crash store", timezone: "UTC" });
  await api(h, "PUT", "/v1/compliance", {
    requireEmailConsent: false,
    frequencyCapDaily: 100,
    frequencyCapWeekly: 500,
    quietHoursStart: "00:00",
    quietHoursEnd: "00:00",
  });
  const template = await api(h, "POST", "/v1/templates", {
    name: "Crash request",
    channel: "email",
    subject: "How did we do, {{firstName}}?",
    bodyHtml: '<p>Hi {{firstName}}, please review {{locationName}}: <a href="{{reviewLink}}">review</a></p>',
    bodyText: "Review us: {{reviewLink}}",
  });
  await api(h, "POST", `/v1/templates/${template.id}/approve`);
  const campaign = await api(h, "POST", "/v1/campaigns", {
    name: "Crash send",
    type: "one_time",
    channels: ["email"],
    locationId: location.id,
  });
  const csv = [
    "email,firstName,lastName",
    ...Array.from({ length: CONTACTS }, (_, i) => `crash.${i}@example.test,Guest${i},Crash`),
  ].join("\n");
  const form = new FormData();
  form.set("file", new Blob([csv], { type: "text/csv" }), "contacts.csv");
  const imported = await api(h, "POST", "/v1/contacts/import/csv", undefined, form);
  log(`imported ${imported.imported} contacts`);

  const before = dev.batches;
  const send = await api(h, "POST", `/v1/campaigns/${campaign.id}/send`, {
    locationId: location.id,
    channel: "email",
    templateId: template.id,
    limit: CONTACTS,
  });
  log(`send answered: ${JSON.stringify({ queued: send.queued, blocked: send.blocked, failed: send.failed })}`);
  await waitUntil(
    async () => dev.batches - before >= KILL_AFTER_BATCHES,
    120_000,
    `${KILL_AFTER_BATCHES} SENDS batches`,
  );
  killGroup(dev, "SIGKILL");
  await exited(dev);
  log(`SIGKILL after ${dev.batches - before} SENDS batches reported`);
  const atKill = counts(campaign.id);
  log("at the kill:", JSON.stringify(atKill));

  dev = startDev("restarted");
  await healthy();
  // the queue messages that were in flight died with the process; whatever the runtime still holds is delivered now
  startedQuietWait = Date.now();
  await quiet(dev);
  const sweepAt = new Date(Date.now() + 31 * 60_000);
  await sweep(sweepAt);
  log(`sweep run at ${sweepAt.toISOString()} (clock +31 min)`);
  startedQuietWait = Date.now();
  await quiet(dev);
  const afterOneSweep = counts(campaign.id);
  log("after one sweep cycle:", JSON.stringify(afterOneSweep));
  await sweep(new Date(Date.now() + 25 * 3600_000));
  log("sweep run with the clock +25 h");
  startedQuietWait = Date.now();
  await quiet(dev, 3_000);
  const afterADay = counts(campaign.id);
  log("a day later:", JSON.stringify(afterADay));
  killGroup(dev, "SIGTERM");
  await exited(dev);

  const ok =
    afterOneSweep.lost === 0 &&
    afterOneSweep.doubled === 0 &&
    afterOneSweep.pending === 0 &&
    afterOneSweep.falseFailures === 0 &&
    afterADay.falseFailures === 0 &&
    afterADay.pending === 0;
  console.log(
    JSON.stringify(
      { contacts: CONTACTS, killedAfterBatches: KILL_AFTER_BATCHES, atKill, afterOneSweep, afterADay, ok },
      null,
      2,
    ),
  );
  if (!process.argv.includes("--keep-state")) rmSync(state, { recursive: true, force: true });
  process.exit(ok ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
