#!/usr/bin/env node
// `npm run shard:add -- --env <production|staging> [--shard <n>] [--skip-deploy]`
// Adds a tenant shard to a deployment (docs/scaling.md, "Adding a shard"): finds or creates the D1
// database <worker>-shard-<n>, declares SHARD_n (and SHARD_0, the control database, on the first
// add) in the environment's marked section of wrangler.toml, applies the migrations (the tenant
// folder on the new database; scripts/db-migrate.mjs), deploys, then checks the new shard answers
// with every tenant migration applied. Without --shard it adds the next number; `--shard <n>` on a
// shard already declared resumes or re-checks it and changes nothing (no create, same config bytes).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  DEPLOYED_ENVS,
  deploymentOf,
  readLocalConfig,
  readRawConfig,
  renderEnvSection,
  resourceNames,
  upsertEnvSection,
} from "./cloudflare/env-config.mjs";
import { MAX_SHARDS } from "./cloudflare/shard-limits.mjs";
import { parseD1List } from "./cloudflare/wrangler-output.mjs";
import { wranglerRunner } from "./cloudflare/wrangler-run.mjs";
import { FOLDERS, migrate, parseExecuteJson } from "./db-migrate.mjs";

const { values: opts } = parseArgs({
  options: {
    env: { type: "string" },
    shard: { type: "string" },
    config: { type: "string", default: "wrangler.toml" },
    "skip-deploy": { type: "boolean", default: false },
  },
});
const { wrangler, fail } = wranglerRunner("shard:add");

const env = opts.env;
if (!DEPLOYED_ENVS.includes(env)) fail(`--env must be one of ${DEPLOYED_ENVS.join(", ")}`);
const config = path.resolve(opts.config);
const deployment = deploymentOf(readRawConfig(config), env);
if (!deployment?.worker || !deployment.d1Id)
  fail(
    `wrangler.toml has no [env.${env}] with a D1 database: run \`npm run setup:cloudflare -- --env ${env}\` first (docs/deploy.md)`,
  );

const declared = deployment.shards;
if (declared.some((s, i) => s.n !== i + 1))
  fail(
    `[env.${env}] declares ${declared.map((s) => `SHARD_${s.n}`).join(", ")}: shards must be numbered 1, 2, ... without gaps (the Worker stops at the first missing one)`,
  );
const next = declared.length + 1;
const target = opts.shard === undefined ? next : Number(opts.shard);
if (!Number.isInteger(target) || target < 1)
  fail("--shard must be a whole number >= 1 (shard 0 is the control database)");
if (target >= MAX_SHARDS) {
  fail(
    `refusing to add shard ${target}: the Worker routes at most ${MAX_SHARDS} shards (SHARD_0..SHARD_${MAX_SHARDS - 1}, MAX_SHARDS in src/db/shards.ts). ` +
      "Raise MAX_SHARDS in a reviewed change first, or make room by moving tenants (docs/scaling.md).",
  );
}
if (target > next) fail(`shard ${target} would leave a gap: the next shard of [env.${env}] is ${next}`);
const name = resourceNames(deployment.worker).shard(target);
const known = declared.find((s) => s.n === target);
console.log(
  known
    ? `shard ${target} (${name}) is declared: checking it, changing only what is missing`
    : `adding shard ${target} (${name}) to [env.${env}]; if this run is interrupted, resume with --shard ${target}`,
);

// 1. The database: found by name (an interrupted run may have created it) or created
const findDb = () => parseD1List(wrangler(["d1", "list", "--json"]).out).find((d) => d.name === name);
let db = findDb();
if (!db) {
  if (known) fail(`SHARD_${target} is declared as ${known.name} (${known.id}) but no such database is on the account`);
  wrangler(["d1", "create", name]);
  db = findDb() ?? fail(`D1 database ${name} was created but is not listed`);
}
if (known && known.id !== db.uuid)
  fail(`SHARD_${target} is declared with database_id ${known.id}, but ${name} on the account is ${db.uuid}`);

// 2. The binding, in the environment's marked section (re-rendered: setup:cloudflare keeps it)
const shards = [...declared.filter((s) => s.n !== target), { n: target, name, id: db.uuid }].sort((a, b) => a.n - b.n);
const text = readFileSync(config, "utf8");
const nextText = upsertEnvSection(text, env, renderEnvSection(readLocalConfig(config), { ...deployment, shards }));
if (nextText !== text) {
  writeFileSync(config, nextText);
  console.log(`declared SHARD_${target} in [env.${env}] of ${opts.config}: commit it (the ids are not secret)`);
} else {
  console.log(`[env.${env}] in ${opts.config} already declares SHARD_${target}`);
}

// 3. Migrations: every database of the environment (the new one gets the tenant folder; the others are up to date)
try {
  await migrate({
    raw: readRawConfig(config),
    env,
    where: "--remote",
    root: path.dirname(config),
    run: (args) => wrangler(args).out,
  });
} catch (e) {
  fail(e.message);
}

// 4. Deploy: the Worker sees SHARD_n only once a version with the binding is live
if (!opts["skip-deploy"]) wrangler(["deploy", "--env", env]);

// 5. The new shard answers, with every tenant migration applied
const expected = readdirSync(path.join(path.dirname(config), FOLDERS.tenant.dir)).filter((f) =>
  f.endsWith(".sql"),
).length;
const probe = wrangler(
  [
    "d1",
    "execute",
    `SHARD_${target}`,
    "--remote",
    "--env",
    env,
    "--json",
    "--command",
    `select count(*) as applied from ${FOLDERS.tenant.table}`,
  ],
  { allowFailure: true },
);
if (!probe.ok) fail(`shard ${target} does not answer:\n${probe.out}${probe.err}`);
const applied = Number(parseExecuteJson(probe.out)[0]?.applied ?? 0);
if (applied !== expected) fail(`shard ${target} answers with ${applied} of ${expected} tenant migrations applied`);
console.log(
  `shard ${target} (${name}) answers with all ${expected} tenant migrations. New tenants are placed on the shard with the most room ` +
    `(it counts as empty until the daily size sweep); move existing ones with POST /admin/tenants/{id}/move (docs/scaling.md). List: npm run shards -- --env ${env}`,
);
