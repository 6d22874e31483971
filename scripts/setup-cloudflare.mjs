#!/usr/bin/env node
// `npm run setup:cloudflare -- --name <worker> --base-url https://... [--env production|staging]`
// From a checkout to a running deployment, idempotently: finds or creates the D1 database, the KV
// namespace and the queues with wrangler, writes their ids into the environment's section of
// wrangler.toml (never the local one), sets the secrets that are not set yet (generated), applies the
// D1 migrations remotely (both folders, scripts/db-migrate.mjs), then deploys. Re-running it creates nothing and rewrites nothing.
// docs/deploy.md explains each step and why wrangler's automatic provisioning is not used.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  DEPLOYED_ENVS,
  deployedQueueNames,
  deploymentOf,
  readLocalConfig,
  readRawConfig,
  renderEnvSection,
  resourceNames,
  upsertEnvSection,
} from "./cloudflare/env-config.mjs";
import { parseD1List, parseKvList, parseQueuesTable, parseSecretList } from "./cloudflare/wrangler-output.mjs";
import { migrate } from "./db-migrate.mjs";
import { generateSecrets, SECRET_MAKERS } from "./lib/secrets.mjs";

const root = path.resolve(import.meta.dirname, "..");
process.chdir(root);
// a `wrangler` earlier on PATH wins (tests put a stand-in there); otherwise the project's own
process.env.PATH = `${process.env.PATH}${path.delimiter}${path.join(root, "node_modules", ".bin")}`;

const { values: opts } = parseArgs({
  options: {
    name: { type: "string" },
    "base-url": { type: "string" },
    env: { type: "string", default: "production" },
    config: { type: "string", default: "wrangler.toml" },
    "skip-deploy": { type: "boolean", default: false },
    // bind Workers AI (docs/ai.md); once bound, later runs keep it
    ai: { type: "boolean", default: false },
  },
});

function fail(message) {
  console.error(`setup:cloudflare: ${message}`);
  process.exit(1);
}

const env = opts.env;
const worker = opts.name;
const baseUrl = opts["base-url"];
if (!DEPLOYED_ENVS.includes(env)) fail(`--env must be one of ${DEPLOYED_ENVS.join(", ")}`);
if (!worker || !/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(worker))
  fail("--name <worker> is required: lower-case letters, digits and dashes");
let base;
try {
  base = new URL(baseUrl ?? "");
} catch {
  fail("--base-url https://<host> is required (the public URL of this deployment)");
}
if (base.protocol !== "https:" || base.pathname !== "/" || base.search)
  fail("--base-url must be an https origin, e.g. https://reviews.example.com");

/** Runs wrangler; returns stdout. Fails the setup on a non-zero exit unless `allowFailure`. */
function wrangler(args, { input, allowFailure = false } = {}) {
  console.log(`$ wrangler ${args.join(" ")}`);
  const r = spawnSync("wrangler", args, {
    input,
    encoding: "utf8",
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
  });
  if (r.error) fail(`could not run wrangler: ${r.error.message}`);
  if (r.status !== 0 && !allowFailure) {
    process.stderr.write(r.stdout + r.stderr);
    fail(`wrangler ${args.slice(0, 3).join(" ")} failed (exit ${r.status})`);
  }
  // what changes the account is shown; listings are parsed, not printed
  if (!args.includes("list")) process.stdout.write(r.stdout);
  return { ok: r.status === 0, out: r.stdout, err: r.stderr };
}

const names = resourceNames(worker);
const local = readLocalConfig(opts.config);

// 1. D1
const findDb = () => parseD1List(wrangler(["d1", "list", "--json"]).out).find((d) => d.name === names.d1);
let db = findDb();
if (!db) {
  wrangler(["d1", "create", names.d1]);
  db = findDb() ?? fail(`D1 database ${names.d1} was created but is not listed`);
}

// 2. KV (created without --env: wrangler would prefix the title with the environment's name)
const findKv = () => parseKvList(wrangler(["kv", "namespace", "list"]).out).find((n) => n.title === names.kv);
let kv = findKv();
if (!kv) {
  wrangler(["kv", "namespace", "create", names.kv]);
  kv = findKv() ?? fail(`KV namespace ${names.kv} was created but is not listed`);
}

// 3. Queues, the dead-letter queue included (`wrangler queues list` prints a table, one page at a time)
const existingQueues = new Set();
for (let page = 1; page <= 100; page++) {
  const rows = parseQueuesTable(wrangler(["queues", "list", "--page", String(page)]).out);
  if (rows.length === 0) break;
  const before = existingQueues.size;
  for (const r of rows) existingQueues.add(r.name);
  if (existingQueues.size === before) break;
}
for (const q of deployedQueueNames(local, worker)) {
  if (!existingQueues.has(q)) wrangler(["queues", "create", q]);
}

// 4. The environment's section of wrangler.toml
const configText = readFileSync(opts.config, "utf8");
const before = deploymentOf(readRawConfig(opts.config), env);
const ai = opts.ai || Boolean(before?.ai);
// shards added since (`npm run shard:add`) stay declared
const section = renderEnvSection(local, {
  env,
  worker,
  baseUrl: base.origin,
  d1Id: db.uuid,
  kvId: kv.id,
  ai,
  shards: before?.worker === worker ? before.shards : [],
});
const nextText = upsertEnvSection(configText, env, section);
if (nextText !== configText) {
  writeFileSync(opts.config, nextText);
  console.log(`wrote [env.${env}] into ${opts.config}: commit it (the ids are not secret)`);
} else {
  console.log(`[env.${env}] in ${opts.config} is up to date`);
}

// 5. Secrets: only those not set yet, so a re-run never rotates anything (rotation: docs/deploy.md)
const listed = wrangler(["secret", "list", "--env", env, "--format", "json"], { allowFailure: true });
let present;
if (listed.ok) present = new Set(parseSecretList(listed.out).map((s) => s.name));
else if (/not found/i.test(listed.out + listed.err))
  present = new Set(); // first run: the Worker does not exist yet
else fail(`wrangler secret list failed:\n${listed.out}${listed.err}`);

// made as `npm run dev` and the test pool make them (scripts/lib/secrets.mjs)
const missing = generateSecrets(Object.keys(SECRET_MAKERS).filter((k) => !present.has(k)));
if (Object.keys(missing).length) {
  // on stdin: no secret in the process list or in a temporary file
  wrangler(["secret", "bulk", "--env", env], { input: JSON.stringify(missing) });
  if (missing.BOOTSTRAP_SECRET) {
    const file = path.join(path.dirname(path.resolve(opts.config)), `.bootstrap-secret.${env}`);
    writeFileSync(file, `${missing.BOOTSTRAP_SECRET}\n`, { mode: 0o600 });
    console.log(
      `BOOTSTRAP_SECRET is in ${file} (not committed): send it as x-bootstrap-secret to POST ${base.origin}/bootstrap, then delete the file`,
    );
  }
} else {
  console.log("secrets JWT_SECRET, ENCRYPTION_KEY, BOOTSTRAP_SECRET are set");
}

// 6. Migrations before the code that needs them (docs/deploy.md, Upgrades): both folders, as `npm run db:migrate` does
try {
  await migrate({
    raw: readRawConfig(opts.config),
    env,
    where: "--remote",
    root: path.dirname(path.resolve(opts.config)),
    run: (args) => wrangler(args).out,
  });
} catch (e) {
  fail(e.message);
}

// 7. Deploy
if (!opts["skip-deploy"]) wrangler(["deploy", "--env", env]);
console.log(`done: ${base.origin} (${env}, worker ${worker}). Next: POST /bootstrap once (README).`);
