#!/usr/bin/env node
// `npm run db:migrate -- [--local | --remote] [--env <env>]`: brings every D1 database the environment
// binds up to date (docs/scaling.md, "Two migration folders"):
// - migrations/tenant/ on every database: each tenant shard and the control database (shard 0);
// - migrations/control/ on the control database (binding DB) only, after the tenant folder.
// A database migrated before the split (wrangler's `d1_migrations` table, migrations/legacy/) is first
// completed with the legacy folder, then the two baselines are recorded as applied: no table is created twice.
// Default: --local, the top-level (local) bindings of wrangler.toml.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readRawConfig } from "./cloudflare/env-config.mjs";
import { readLocalTracking, TRACKING_TABLES_SQL } from "./lib/local-d1.mjs";

/** The two folders; `baseline` is what the legacy folder 0000..0024 already created (recorded, never run, on an upgrade). */
export const FOLDERS = {
  tenant: {
    dir: "migrations/tenant",
    table: "d1_migrations_tenant",
    baseline: ["0000_baseline.sql", "0001_house_agency_contact_counts.sql"],
  },
  control: { dir: "migrations/control", table: "d1_migrations_control", baseline: ["0000_baseline.sql"] },
};
/** Before the split: one folder applied to every database, tracked in wrangler's default table. */
export const LEGACY = { dir: "migrations/legacy", table: "d1_migrations", renamedTo: "d1_migrations_legacy" };

export const CONTROL_BINDING = "DB";
const isShard = (binding) => /^SHARD_\d+$/.test(binding);

/** The [[d1_databases]] (or [[env.<env>.d1_databases]]) entries of a wrangler config. */
export function d1Databases(raw, env) {
  return (env ? raw.env?.[env]?.d1_databases : raw.d1_databases) ?? [];
}

/**
 * What to do per distinct database (two bindings on one database, locally DB and SHARD_0, are one):
 * `tenant` names the binding that applies the tenant folder (`viaOverride`: the binding declares the
 * control folder, so the tenant folder goes through a generated config), `control` the binding that
 * applies the control folder, or null on a shard. Fails on a binding that declares the wrong folder.
 */
export function migrationPlan(databases) {
  const groups = new Map();
  for (const d of databases) {
    const want = d.binding === CONTROL_BINDING ? FOLDERS.control : isShard(d.binding) ? FOLDERS.tenant : null;
    if (!want)
      throw new Error(`D1 binding ${d.binding}: only ${CONTROL_BINDING} and SHARD_<n> are known (docs/scaling.md)`);
    if (d.migrations_dir !== want.dir || d.migrations_table !== want.table) {
      throw new Error(
        `D1 binding ${d.binding} must declare migrations_dir = "${want.dir}" and migrations_table = "${want.table}" (docs/scaling.md)`,
      );
    }
    const key = d.database_id ?? d.binding;
    groups.set(key, [...(groups.get(key) ?? []), d]);
  }
  return [...groups.values()].map((group) => {
    const control = group.find((d) => d.binding === CONTROL_BINDING);
    const shard = group.find((d) => isShard(d.binding));
    const via = control ?? shard;
    return {
      database: via.database_name ?? via.binding,
      binding: via.binding,
      entry: via,
      tenant: shard ? { binding: shard.binding, viaOverride: false } : { binding: control.binding, viaOverride: true },
      control: control ? control.binding : null,
    };
  });
}

/** SQL that records the baselines as applied on a database the legacy folder built, then retires the legacy tracking table. */
export function adoptBaselinesSql(isControl) {
  const folders = isControl ? [FOLDERS.tenant, FOLDERS.control] : [FOLDERS.tenant];
  const statements = [];
  for (const f of folders) {
    // the table wrangler creates for migrations_table (same columns: `wrangler d1 migrations list` reads it)
    statements.push(
      `CREATE TABLE IF NOT EXISTS ${f.table}(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)`,
    );
    statements.push(`INSERT OR IGNORE INTO ${f.table} (name) VALUES ${f.baseline.map((n) => `('${n}')`).join(", ")}`);
  }
  statements.push(`ALTER TABLE ${LEGACY.table} RENAME TO ${LEGACY.renamedTo}`);
  return `${statements.join("; ")};`;
}

/** The rows of `wrangler d1 execute --json` output (one result set per statement; the first one here). */
export function parseExecuteJson(out) {
  const start = out.search(/^\[/m); // a line of its own: anything printed before it (a warning) is not JSON
  if (start < 0) throw new Error(`wrangler d1 execute --json printed no JSON: ${out.slice(0, 200)}`);
  const parsed = JSON.parse(out.slice(start));
  return parsed[0]?.results ?? [];
}

/**
 * Migrates every database of the environment (remote ones side by side, local ones in turn; each one's steps in order).
 * `run(args)` runs wrangler and returns (or resolves to) its stdout, throwing on a non-zero exit;
 * `root` is the directory of the wrangler config (migrations/ is beside it); `persistTo` the local
 * state directory (default <root>/.wrangler/state, where `wrangler dev` looks).
 */
export async function migrate({ raw, env, where, root, run, persistTo = path.join(root, ".wrangler", "state") }) {
  const databases = d1Databases(raw, env);
  if (!databases.length)
    throw new Error(`no d1_databases for ${env ? `env ${env}` : "the local environment"} in wrangler.toml`);
  const scope = [where, ...(env ? ["--env", env] : [])];
  const local = where === "--local" ? ["--persist-to", persistTo] : [];

  /** A config naming one database with the given folder: for the tenant or legacy folder on the control database. */
  const override = (entry, folder, name) => {
    const dir = path.join(root, ".wrangler", "tmp");
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `migrate-${entry.binding}-${name}.json`);
    const d1 = [{ ...entry, migrations_dir: path.join(root, folder.dir), migrations_table: folder.table }];
    const config = {
      name: raw.name ?? "migrate",
      ...(raw.account_id ? { account_id: raw.account_id } : {}),
      d1_databases: d1,
      ...(env ? { env: { [env]: { d1_databases: d1 } } } : {}),
    };
    writeFileSync(file, JSON.stringify(config, null, 2));
    return ["-c", file];
  };
  const apply = (binding, extra = []) => run(["d1", "migrations", "apply", binding, ...scope, ...local, ...extra]);

  const plan = migrationPlan(databases);
  const freshLocal = where === "--local" && !existsSync(path.join(persistTo, "v3", "d1"));
  // Local databases are probed in this process (the files wrangler keeps, opened with its Miniflare): one
  // start for all of them instead of a wrangler start (~3 s) per database, and a folder with nothing
  // pending is not handed to wrangler at all, so `npm run dev` on a migrated checkout starts no wrangler
  const localTracking =
    where === "--local" && !freshLocal
      ? await readLocalTracking(
          persistTo,
          plan.map((step) => step.entry),
        )
      : null;
  const pending = (folder, binding) => {
    if (!localTracking) return null; // unknown: wrangler decides
    const applied = new Set(localTracking.get(binding)?.applied[folder.table] ?? []);
    return readdirSync(path.join(root, folder.dir)).filter((f) => f.endsWith(".sql") && !applied.has(f));
  };
  // Remote databases migrate side by side. Local ones one after another: each local wrangler call
  // starts a workerd on the same state directory, and two starting at once failed ("The Workers
  // runtime failed to start") on a busy machine.
  const sideBySide = where === "--remote";
  const settle = async (steps, each) => {
    if (sideBySide) return Promise.allSettled(steps.map(each));
    const out = [];
    for (const step of steps)
      out.push(
        await each(step).then(
          (value) => ({ status: "fulfilled", value }),
          (reason) => ({ status: "rejected", reason }),
        ),
      );
    return out;
  };
  // every database runs to its end even when another fails (no step is cut off), then the first failure is reported
  const results = await settle(plan, async (step) => {
    console.log(
      `migrating ${step.database} (${step.control ? "control database: tenant + control folders" : "tenant shard: tenant folder"}; ${scope.join(" ")})`,
    );
    // a local state folder with no D1 database yet (a fresh clone's first `npm run dev`) holds no legacy
    // database: the probe (one wrangler start, several seconds) is skipped
    const tracking = freshLocal
      ? []
      : localTracking
        ? (localTracking.get(step.binding)?.tables ?? [])
        : parseExecuteJson(
            await run(["d1", "execute", step.binding, ...scope, ...local, "--json", "--command", TRACKING_TABLES_SQL]),
          ).map((r) => r.name);
    if (tracking.includes(LEGACY.table)) {
      console.log(
        `${step.database} predates the split: completing migrations/legacy, then recording the baselines as applied`,
      );
      await apply(step.binding, override(step.entry, LEGACY, "legacy"));
      await run([
        "d1",
        "execute",
        step.binding,
        ...scope,
        ...local,
        "--json",
        "--command",
        adoptBaselinesSql(Boolean(step.control)),
      ]);
    }
    const upgraded = tracking.includes(LEGACY.table);
    const applyFolder = async (folder, binding, extra) => {
      const left = upgraded ? null : pending(folder, step.binding);
      if (left && left.length === 0) return console.log(`${step.database}: ${folder.dir} has nothing to apply`);
      await apply(binding, extra);
    };
    await applyFolder(
      FOLDERS.tenant,
      step.tenant.binding,
      step.tenant.viaOverride ? override(step.entry, FOLDERS.tenant, "tenant") : [],
    );
    if (step.control) await applyFolder(FOLDERS.control, step.control, []);
    console.log(`${step.database}: up to date`);
  });
  const failed = results.find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
}

// wrangler's banner and hints dropped; the rest printed per call once it ends (databases migrate side by side)
const quiet = (out) =>
  `${out
    .split("\n")
    .filter((l) => l.trim() && !/wrangler \d|^─+$|^Resource location|^Use --remote/.test(l))
    .join("\n")}\n`;

/** `run` for migrate(): the project's wrangler, its output printed once the call ends (JSON answers only on failure). */
export const runWrangler = (wranglerArgs) =>
  new Promise((resolve, reject) => {
    // the project's wrangler started by node itself: `npx` would start a second Node (npm's) every call
    const bin = path.join(process.cwd(), "node_modules", ".bin", "wrangler");
    const [command, args] =
      process.platform !== "win32" && existsSync(bin)
        ? [process.execPath, [bin, ...wranglerArgs]]
        : ["npx", ["--no-install", "wrangler", ...wranglerArgs]];
    const child = spawn(command, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const json = wranglerArgs.includes("--json");
      const c = wranglerArgs.indexOf("-c");
      const label = `${wranglerArgs.slice(0, 4).join(" ")}${c >= 0 ? ` -c ${path.basename(wranglerArgs[c + 1])}` : ""}`;
      if (!json || code !== 0) process.stdout.write(`$ wrangler ${label}\n${json ? out : quiet(out)}`);
      if (err.trim() && code !== 0) process.stderr.write(err);
      if (code !== 0) reject(new Error(`wrangler ${label} failed (exit ${code})`));
      else resolve(out);
    });
  });

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const envIdx = args.indexOf("--env");
  const env = envIdx >= 0 ? args[envIdx + 1] : undefined;
  const where = args.includes("--remote") ? "--remote" : "--local";
  const root = process.cwd();
  try {
    await migrate({ raw: readRawConfig(path.join(root, "wrangler.toml")), env, where, root, run: runWrangler });
  } catch (e) {
    console.error(`db:migrate: ${e.message}`);
    process.exit(1);
  }
}
