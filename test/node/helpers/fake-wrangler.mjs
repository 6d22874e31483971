#!/usr/bin/env node
// A stand-in `wrangler` for offline tests of scripts/setup-cloudflare.mjs, shard-add.mjs and shards.mjs: it keeps an account's
// resources in a JSON file (FAKE_WRANGLER_STATE), records every call, and prints what wrangler 4.x
// prints for these commands (shapes copied from node_modules/wrangler/wrangler-dist/cli.js).
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readRawConfig } from "../../../scripts/cloudflare/env-config.mjs";

const stateFile = process.env.FAKE_WRANGLER_STATE;
const state = JSON.parse(readFileSync(stateFile, "utf8"));
const args = process.argv.slice(2);
const stdin = args[0] === "secret" && args[1] === "bulk" ? readFileSync(0, "utf8") : "";
state.calls.push({ args, ...(stdin ? { stdinKeys: Object.keys(JSON.parse(stdin)) } : {}) });
const save = () => writeFileSync(stateFile, JSON.stringify(state, null, 2));
const flag = (name) => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
};
const hex = (n) => randomUUID().replace(/-/g, "").repeat(2).slice(0, n);
const die = (message) => {
  save();
  console.error(`✘ [ERROR] ${message}`);
  process.exit(1);
};

/** cli-table3 with no colours, as logger.table prints it; an empty list prints an empty line. */
function table(rows) {
  if (rows.length === 0) return "";
  const head = Object.keys(rows[0]);
  const widths = head.map((h) => Math.max(h.length, ...rows.map((r) => String(r[h]).length)) + 2);
  const line = (l, m, r) => l + widths.map((w) => "─".repeat(w)).join(m) + r;
  const row = (cells) => `│${cells.map((c, i) => ` ${String(c).padEnd(widths[i] - 1)}`).join("│")}│`;
  return [
    line("┌", "┬", "┐"),
    row(head),
    line("├", "┼", "┤"),
    ...rows.map((r) => row(head.map((h) => r[h]))),
    line("└", "┴", "┘"),
  ].join("\n");
}

/** A wrangler config as written (the scripts' own reader: smol-toml, as wrangler parses TOML). */
function readConfig(configFile) {
  if (configFile.endsWith(".json")) return JSON.parse(readFileSync(configFile, "utf8"));
  return readRawConfig(configFile);
}

/** The d1_databases entry a binding names in the environment (wrangler fails on an unknown binding). */
function databaseEntry(env, binding, configFile = process.env.FAKE_WRANGLER_CONFIG) {
  const raw = readConfig(configFile);
  const entry = (raw.env?.[env]?.d1_databases ?? raw.d1_databases ?? []).find((d) => d.binding === binding);
  if (!entry) die(`Couldn't find a D1 DB with the name or binding '${binding}' in your wrangler.toml file.`);
  return entry;
}

/**
 * Applied-migration counts per tracking table of one database: the environment's control database
 * (DB, or a binding on the same database_id) under state.migrations[env], any other under
 * state.migrations["<env>:<database_name>"].
 */
function migrationsOf(env, entry) {
  const raw = readConfig(process.env.FAKE_WRANGLER_CONFIG);
  const control = (raw.env?.[env]?.d1_databases ?? []).find((d) => d.binding === "DB");
  const key = !control || entry.database_id === control.database_id ? env : `${env}:${entry.database_name}`;
  state.migrations[key] ??= {};
  return state.migrations[key];
}

const firstFlag = args.findIndex((a) => a.startsWith("--"));
const cmd = (firstFlag < 0 ? args : args.slice(0, firstFlag)).join(" ");
const now = "2026-11-25T12:00:00.000Z";

if (cmd === "d1 list") {
  console.log(JSON.stringify(state.d1, null, 2));
} else if (cmd.startsWith("d1 create")) {
  const name = args[2];
  if (state.d1.some((d) => d.name === name)) die("A database with that name already exists");
  state.d1.push({
    uuid: randomUUID(),
    name,
    created_at: now,
    version: "production",
    num_tables: 0,
    file_size: 12288,
    jurisdiction: null,
  });
  console.log(`✅ Successfully created DB '${name}' in region WEUR\nCreated your new D1 database.\n`);
} else if (cmd === "kv namespace list") {
  console.log(JSON.stringify(state.kv, null, "  "));
} else if (cmd.startsWith("kv namespace create")) {
  const title = args[3];
  if (state.kv.some((n) => n.title === title)) die(`A KV namespace with the title "${title}" already exists.`);
  const id = hex(32);
  state.kv.push({ id, title, supports_url_encoding: true });
  console.log(
    `🌀 Creating namespace with title "${title}"\n✨ Success!\nTo access your new KV Namespace in your Worker, add the following snippet to your configuration file:\n[[kv_namespaces]]\nbinding = "KV"\nid = "${id}"`,
  );
} else if (cmd === "queues list") {
  const size = Number(process.env.FAKE_WRANGLER_PAGE_SIZE ?? 3);
  const page = Number(flag("--page") ?? 1);
  const rows = state.queues.slice((page - 1) * size, page * size).map((q) => ({
    id: q.queue_id,
    name: q.queue_name,
    created_on: now,
    modified_on: now,
    producers: "0",
    consumers: "0",
  }));
  console.log(table(rows));
} else if (cmd.startsWith("queues create")) {
  const name = args[2];
  if (state.queues.some((q) => q.queue_name === name)) die(`A queue with this name already exists. [code: 11009]`);
  state.queues.push({ queue_id: hex(32), queue_name: name });
  console.log(`🌀 Creating queue '${name}'\n✅ Created queue '${name}'`);
} else if (cmd === "secret list") {
  const env = flag("--env");
  if (!state.workers.includes(env))
    die(
      `Worker "reputation" (env: ${env}) not found.\n\nIf this is a new Worker, run \`wrangler deploy\` first to create it.`,
    );
  console.log(
    JSON.stringify(
      (state.secrets[env] ?? []).map((name) => ({ name, type: "secret_text" })),
      null,
      "  ",
    ),
  );
} else if (cmd === "secret bulk") {
  const env = flag("--env");
  if (!state.workers.includes(env)) state.workers.push(env); // wrangler creates a draft Worker
  const names = Object.keys(JSON.parse(stdin));
  state.secrets[env] = [...new Set([...(state.secrets[env] ?? []), ...names])];
  console.log(
    `${names.map((n) => `✨ Successfully created secret for key: ${n}`).join("\n")}\n\nFinished processing secrets file:\n✨ ${names.length} secrets successfully uploaded`,
  );
} else if (args[0] === "d1" && args[1] === "execute") {
  // the tracking tables scripts/db-migrate.mjs probes for, the statements that adopt the baselines,
  // a shard's tenant-migration count (npm run shard:add) and the shard listing (npm run shards)
  const env = flag("--env");
  const db = migrationsOf(env, databaseEntry(env, args[2]));
  const sql = flag("--command");
  if (/from sqlite_master/.test(sql)) {
    console.log(
      JSON.stringify([
        {
          results: Object.keys(db)
            .sort()
            .map((name) => ({ name })),
          success: true,
          meta: {},
        },
      ]),
    );
  } else if (/count\(\*\) as applied from (\w+)/.test(sql)) {
    const table = /count\(\*\) as applied from (\w+)/.exec(sql)[1];
    if (db[table] === undefined) die(`no such table: ${table}: SQLITE_ERROR [code: 7500]`);
    console.log(JSON.stringify([{ results: [{ applied: db[table] }], success: true, meta: {} }]));
  } else if (/from shard_sizes/.test(sql)) {
    const control = state.control?.[env] ?? {};
    console.log(
      JSON.stringify([
        { results: control.shardSizes ?? [], success: true, meta: {} },
        { results: control.tenantCounts ?? [], success: true, meta: {} },
      ]),
    );
  } else {
    for (const m of sql.matchAll(/INSERT OR IGNORE INTO (\w+) \(name\) VALUES ([^;]+)/g))
      db[m[1]] = Math.max(db[m[1]] ?? 0, m[2].split("),").length);
    for (const m of sql.matchAll(/ALTER TABLE (\w+) RENAME TO (\w+)/g)) {
      db[m[2]] = db[m[1]];
      delete db[m[1]];
    }
    console.log(JSON.stringify([{ results: [], success: true, meta: {} }]));
  }
} else if (args[0] === "d1" && args[1] === "migrations" && args[2] === "apply") {
  // the binding's folder and tracking table: from -c (a generated config) or the project's config (FAKE_WRANGLER_CONFIG)
  const env = flag("--env");
  const configFile = flag("-c") ?? process.env.FAKE_WRANGLER_CONFIG;
  const entry = databaseEntry(env, args[3], configFile);
  const dir = path.resolve(path.dirname(configFile), entry.migrations_dir);
  const table = entry.migrations_table ?? "d1_migrations";
  const db = migrationsOf(env, entry);
  const already = db[table] ?? 0;
  const total = readdirSync(dir).filter((f) => f.endsWith(".sql")).length;
  db[table] = Math.max(already, total);
  console.log(
    already >= total
      ? "✅ No migrations to apply!"
      : `🌀 Executing on remote database ${args[3]}:\n${total - already} migrations applied`,
  );
} else if (cmd === "deploy") {
  const env = flag("--env");
  if (!state.workers.includes(env)) state.workers.push(env);
  state.deploys.push(env);
  console.log(`Uploaded reputation (${env})\nDeployed triggers\nCurrent Version ID: ${randomUUID()}`);
} else {
  die(`fake wrangler: unexpected command: ${args.join(" ")}`);
}
save();
