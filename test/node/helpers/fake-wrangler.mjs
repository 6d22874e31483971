// A stand-in `wrangler` for offline tests of scripts/setup-cloudflare.mjs, shard-add.mjs and shards.mjs: it keeps
// an account's resources in a JSON file (FAKE_WRANGLER_STATE), records every call, and prints what wrangler 4.x
// prints for these commands (shapes copied from node_modules/wrangler/wrangler-dist/cli.js).
//
// The scripts run it as they run wrangler: a process named `wrangler` first on PATH, read through its stdout,
// stderr and exit code. That process is a bash script (startFakeWrangler) that relays the call to
// `fakeWrangler` in the test's own process over loopback TCP and prints the answer: a call costs a bash start
// (a few ms of CPU) instead of a Node start (~0.2 s); the setup:cloudflare test makes 85 calls (docs/testing.md).
// Calls are answered one at a time, in the order they arrive.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { readRawConfig } from "../../../scripts/cloudflare/env-config.mjs";

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

/** wrangler's exit: the state saved, the status returned. */
class Exit extends Error {
  constructor(status) {
    super(`exit ${status}`);
    this.status = status;
  }
}

/**
 * One wrangler call: `args` as wrangler got them, `stdin` (read for `secret bulk` only), `vars` the caller's
 * FAKE_WRANGLER_STATE, FAKE_WRANGLER_CONFIG and FAKE_WRANGLER_PAGE_SIZE. Returns what the process would give.
 */
export function fakeWrangler({ args, stdin = "", vars }) {
  const stateFile = vars.FAKE_WRANGLER_STATE;
  const state = JSON.parse(readFileSync(stateFile, "utf8"));
  state.calls.push({ args, ...(stdin ? { stdinKeys: Object.keys(JSON.parse(stdin)) } : {}) });
  const stdout = [];
  const stderr = [];
  const log = (text) => stdout.push(`${text}\n`);
  const save = () => writeFileSync(stateFile, JSON.stringify(state, null, 2));
  const flag = (name) => {
    const i = args.indexOf(name);
    return i < 0 ? undefined : args[i + 1];
  };
  const hex = (n) => randomUUID().replace(/-/g, "").repeat(2).slice(0, n);
  const die = (message) => {
    save();
    stderr.push(`✘ [ERROR] ${message}\n`);
    throw new Exit(1);
  };

  /** The d1_databases entry a binding names in the environment (wrangler fails on an unknown binding). */
  function databaseEntry(env, binding, configFile = vars.FAKE_WRANGLER_CONFIG) {
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
    const raw = readConfig(vars.FAKE_WRANGLER_CONFIG);
    const control = (raw.env?.[env]?.d1_databases ?? []).find((d) => d.binding === "DB");
    const key = !control || entry.database_id === control.database_id ? env : `${env}:${entry.database_name}`;
    state.migrations[key] ??= {};
    return state.migrations[key];
  }

  function run() {
    const firstFlag = args.findIndex((a) => a.startsWith("--"));
    const cmd = (firstFlag < 0 ? args : args.slice(0, firstFlag)).join(" ");
    const now = "2026-11-25T12:00:00.000Z";

    if (cmd === "d1 list") {
      log(JSON.stringify(state.d1, null, 2));
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
      log(`✅ Successfully created DB '${name}' in region WEUR\nCreated your new D1 database.\n`);
    } else if (cmd === "kv namespace list") {
      log(JSON.stringify(state.kv, null, "  "));
    } else if (cmd.startsWith("kv namespace create")) {
      const title = args[3];
      if (state.kv.some((n) => n.title === title)) die(`A KV namespace with the title "${title}" already exists.`);
      const id = hex(32);
      state.kv.push({ id, title, supports_url_encoding: true });
      log(
        `🌀 Creating namespace with title "${title}"\n✨ Success!\nTo access your new KV Namespace in your Worker, add the following snippet to your configuration file:\n[[kv_namespaces]]\nbinding = "KV"\nid = "${id}"`,
      );
    } else if (cmd === "queues list") {
      const size = Number(vars.FAKE_WRANGLER_PAGE_SIZE ?? 3);
      const page = Number(flag("--page") ?? 1);
      const rows = state.queues.slice((page - 1) * size, page * size).map((q) => ({
        id: q.queue_id,
        name: q.queue_name,
        created_on: now,
        modified_on: now,
        producers: "0",
        consumers: "0",
      }));
      log(table(rows));
    } else if (cmd.startsWith("queues create")) {
      const name = args[2];
      if (state.queues.some((q) => q.queue_name === name)) die(`A queue with this name already exists. [code: 11009]`);
      state.queues.push({ queue_id: hex(32), queue_name: name });
      log(`🌀 Creating queue '${name}'\n✅ Created queue '${name}'`);
    } else if (cmd === "secret list") {
      const env = flag("--env");
      if (!state.workers.includes(env))
        die(
          `Worker "reputation" (env: ${env}) not found.\n\nIf this is a new Worker, run \`wrangler deploy\` first to create it.`,
        );
      log(
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
      log(
        `${names.map((n) => `✨ Successfully created secret for key: ${n}`).join("\n")}\n\nFinished processing secrets file:\n✨ ${names.length} secrets successfully uploaded`,
      );
    } else if (args[0] === "d1" && args[1] === "execute") {
      // the tracking tables scripts/db-migrate.mjs probes for, the statements that adopt the baselines,
      // a shard's tenant-migration count (npm run shard:add) and the shard listing (npm run shards)
      const env = flag("--env");
      const db = migrationsOf(env, databaseEntry(env, args[2]));
      const sql = flag("--command");
      if (/from sqlite_master/.test(sql)) {
        log(
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
        log(JSON.stringify([{ results: [{ applied: db[table] }], success: true, meta: {} }]));
      } else if (/from shard_sizes/.test(sql)) {
        const control = state.control?.[env] ?? {};
        log(
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
        log(JSON.stringify([{ results: [], success: true, meta: {} }]));
      }
    } else if (args[0] === "d1" && args[1] === "migrations" && args[2] === "apply") {
      // the binding's folder and tracking table: from -c (a generated config) or the project's config (FAKE_WRANGLER_CONFIG)
      const env = flag("--env");
      const configFile = flag("-c") ?? vars.FAKE_WRANGLER_CONFIG;
      const entry = databaseEntry(env, args[3], configFile);
      const dir = path.resolve(path.dirname(configFile), entry.migrations_dir);
      const table = entry.migrations_table ?? "d1_migrations";
      const db = migrationsOf(env, entry);
      const already = db[table] ?? 0;
      const total = readdirSync(dir).filter((f) => f.endsWith(".sql")).length;
      db[table] = Math.max(already, total);
      log(
        already >= total
          ? "✅ No migrations to apply!"
          : `🌀 Executing on remote database ${args[3]}:\n${total - already} migrations applied`,
      );
    } else if (cmd === "deploy") {
      const env = flag("--env");
      if (!state.workers.includes(env)) state.workers.push(env);
      state.deploys.push(env);
      log(`Uploaded reputation (${env})\nDeployed triggers\nCurrent Version ID: ${randomUUID()}`);
    } else {
      die(`fake wrangler: unexpected command: ${args.join(" ")}`);
    }
  }

  try {
    run();
    save();
    return { status: 0, stdout: stdout.join(""), stderr: stderr.join("") };
  } catch (e) {
    if (!(e instanceof Exit)) throw e;
    return { status: e.status, stdout: stdout.join(""), stderr: stderr.join("") };
  }
}

/** The `wrangler` on PATH: sends its call to the port (NUL-separated), prints the answer, exits with its status. */
const relay = (port) => `#!/bin/bash
# the stand-in wrangler of test/node/helpers/fake-wrangler.mjs, answered by the test's process on port ${port}
export LC_ALL=C # read -N counts bytes
exec 3<>/dev/tcp/127.0.0.1/${port} || exit 71
stdin=
if [ "$1" = secret ] && [ "$2" = bulk ]; then IFS= read -r -d '' stdin; fi
printf '%s\\0' "$#" "\${FAKE_WRANGLER_STATE-}" "\${FAKE_WRANGLER_CONFIG-}" "\${FAKE_WRANGLER_PAGE_SIZE-}" "$stdin" "$@" >&3
read -r status outlen errlen <&3 || exit 71
out=
err=
if [ "$outlen" -gt 0 ]; then IFS= read -r -N "$outlen" out <&3; fi
if [ "$errlen" -gt 0 ]; then IFS= read -r -N "$errlen" err <&3; fi
printf '%s' "$out"
printf '%s' "$err" >&2
exit "$status"
`;

/**
 * Serves fakeWrangler on a loopback port and writes the relaying `wrangler` into `binDir` (put it first on
 * PATH). The test's process must stay free to answer: run the scripts with spawn, not spawnSync.
 */
export async function startFakeWrangler(binDir) {
  const server = createServer((socket) => {
    let received = Buffer.alloc(0);
    let answered = false;
    socket.on("error", () => {});
    socket.on("data", (chunk) => {
      received = Buffer.concat([received, chunk]);
      // "<argc>\0", the caller's three variables, stdin, then the arguments, each ended by \0
      const fields = received.toString("utf8").split("\0");
      const complete = fields.length >= 2 && fields.length - 1 >= 5 + Number(fields[0]);
      if (answered || !complete) return;
      answered = true;
      const [, state, config, pageSize, stdin, ...args] = fields.slice(0, 5 + Number(fields[0]));
      const vars = {
        FAKE_WRANGLER_STATE: state,
        FAKE_WRANGLER_CONFIG: config,
        FAKE_WRANGLER_PAGE_SIZE: pageSize || undefined,
      };
      let reply;
      try {
        reply = fakeWrangler({ args, stdin, vars });
      } catch (e) {
        reply = { status: 70, stdout: "", stderr: `fake wrangler: ${e.stack}\n` };
      }
      const out = Buffer.from(reply.stdout);
      const err = Buffer.from(reply.stderr);
      socket.end(Buffer.concat([Buffer.from(`${reply.status} ${out.length} ${err.length}\n`), out, err]));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  mkdirSync(binDir, { recursive: true });
  writeFileSync(path.join(binDir, "wrangler"), relay(server.address().port));
  chmodSync(path.join(binDir, "wrangler"), 0o755);
  return { close: () => new Promise((resolve) => server.close(resolve)) };
}

/** `node <args>` as spawnSync would report it, but asynchronous: the stand-in answers from this process meanwhile. */
export function runNode(args, { cwd, env }) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}
