#!/usr/bin/env node
// `npm run db:migrate -- [--local | --remote] [--env <env>]`: applies migrations/ to every D1 database
// the environment binds: the control database (DB) and each tenant shard (SHARD_0..SHARD_n), which
// all carry the whole schema (docs/scaling.md). Default: --local, the top-level (local) bindings.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
const envIdx = args.indexOf("--env");
const envName = envIdx >= 0 ? args[envIdx + 1] : undefined;
const where = args.includes("--remote") ? "--remote" : "--local";

/** Binding names of the [[d1_databases]] (or [[env.<name>.d1_databases]]) tables, distinct databases only. */
export function d1Bindings(toml, env) {
  const header = env ? `[[env.${env}.d1_databases]]` : "[[d1_databases]]";
  const out = [];
  const seen = new Set();
  const blocks = toml.split(/\r?\n(?=\[)/);
  for (const block of blocks) {
    if (!block.startsWith(header)) continue;
    const binding = /binding\s*=\s*"([^"]+)"/.exec(block)?.[1];
    const id = /database_id\s*=\s*"([^"]+)"/.exec(block)?.[1];
    if (!binding) continue;
    // two bindings on one database (locally SHARD_0 is DB): migrate it once
    if (id && seen.has(id)) continue;
    if (id) seen.add(id);
    out.push(binding);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const bindings = d1Bindings(readFileSync("wrangler.toml", "utf8"), envName);
  if (!bindings.length) {
    console.error(`no d1_databases for ${envName ? `env ${envName}` : "the local environment"} in wrangler.toml`);
    process.exit(1);
  }
  for (const binding of bindings) {
    console.log(`migrating ${binding} (${where}${envName ? ` --env ${envName}` : ""})`);
    const r = spawnSync("npx", ["--no-install", "wrangler", "d1", "migrations", "apply", binding, where, ...(envName ? ["--env", envName] : [])], {
      stdio: "inherit",
      env: { ...process.env, CI: "true" },
    });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
}
