#!/usr/bin/env node
// `npm run db:migrate -- [--local | --remote] [--env <env>]`: brings every D1 database the environment
// binds up to date (docs/scaling.md, "Two migration folders"):
// - migrations/tenant/ on every database: each tenant shard and the control database (shard 0);
// - migrations/control/ on the control database (binding DB) only, after the tenant folder.
// A database migrated before the split (wrangler's `d1_migrations` table, migrations/legacy/) is first
// completed with the legacy folder, then the two baselines are recorded as applied: no table is created twice.
// Default: --local, the top-level (local) bindings of wrangler.toml, migrated in this process with wrangler's
// semantics (scripts/lib/local-migrations.mjs); --remote databases are migrated by wrangler itself.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readRawConfig } from "./cloudflare/env-config.mjs";
import { openLocalD1, TRACKING_TABLES_SQL, trackingTables } from "./lib/local-d1.mjs";
import { applyLocalFolder, executeLocal } from "./lib/local-migrations.mjs";

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
 * Migrates every database of the environment. `root` is the directory of the wrangler config (migrations/ is
 * beside it). Local databases are migrated in this process, remote ones by wrangler: `run(args)` runs wrangler
 * and returns (or resolves to) its stdout, throwing on a non-zero exit. `persistTo` is the local state directory
 * (default <root>/.wrangler/state, where `wrangler dev` looks).
 */
export async function migrate({ raw, env, where, root, run, persistTo = path.join(root, ".wrangler", "state") }) {
  const databases = d1Databases(raw, env);
  if (!databases.length)
    throw new Error(`no d1_databases for ${env ? `env ${env}` : "the local environment"} in wrangler.toml`);
  const plan = migrationPlan(databases);
  const scope = [where, ...(env ? ["--env", env] : [])];
  return where === "--local"
    ? migrateLocal({ plan, root, persistTo, scope })
    : migrateRemote({ plan, raw, env, root, run, scope });
}

const describeStep = (step, scope) =>
  `migrating ${step.database} (${step.control ? "control database: tenant + control folders" : "tenant shard: tenant folder"}; ${scope.join(" ")})`;
const UPGRADE_NOTE = "predates the split: completing migrations/legacy, then recording the baselines as applied";

/**
 * Local databases: one Miniflare for all of them (scripts/lib/local-d1.mjs), each folder applied with
 * `wrangler d1 migrations apply --local`'s semantics (scripts/lib/local-migrations.mjs) instead of one wrangler
 * process per folder, which started a workerd per migration file. The databases one after another; every
 * database runs to its end even when another fails, then the failures are reported.
 */
async function migrateLocal({ plan, root, persistTo, scope }) {
  const d1Dir = path.join(persistTo, "v3", "d1");
  console.log(`local D1 state: ${path.relative(process.cwd(), d1Dir) || d1Dir} (the files \`wrangler dev\` opens)`);
  const local = openLocalD1(
    persistTo,
    plan.map((step) => step.entry),
  );
  const failures = [];
  try {
    for (const step of plan) {
      console.log(describeStep(step, scope));
      const d1 = await local.database(step.binding);
      const folder = (f) => ({
        dir: path.join(root, f.dir),
        table: f.table,
        label: f.dir,
        onApplied: (file) => console.log(`${step.database}: applied ${f.dir}/${file}`),
      });
      try {
        if ((await trackingTables(d1)).includes(LEGACY.table)) {
          console.log(`${step.database} ${UPGRADE_NOTE}`);
          await applyLocalFolder(d1, folder(LEGACY));
          await executeLocal(d1, adoptBaselinesSql(Boolean(step.control)));
          console.log(
            `${step.database}: recorded the baselines as applied, ${LEGACY.table} renamed ${LEGACY.renamedTo}`,
          );
        }
        for (const f of step.control ? [FOLDERS.tenant, FOLDERS.control] : [FOLDERS.tenant]) {
          const applied = await applyLocalFolder(d1, folder(f));
          if (!applied.length) console.log(`${step.database}: ${f.dir} has nothing to apply`);
        }
        console.log(`${step.database}: up to date`);
      } catch (e) {
        failures.push(`${step.database}: ${e.message}`);
      }
    }
  } finally {
    await local.dispose();
  }
  if (failures.length) throw new Error(failures.join("\n"));
}

/**
 * Remote databases, side by side, by wrangler: the tracking tables probed (`d1 execute`), then
 * `d1 migrations apply` per folder (the tenant or legacy folder of a database that DB alone binds through a
 * generated config naming DB with that folder). Every database runs to its end even when another fails.
 */
async function migrateRemote({ plan, raw, env, root, run, scope }) {
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
  const apply = (binding, extra = []) => run(["d1", "migrations", "apply", binding, ...scope, ...extra]);
  const execute = (binding, sql) => run(["d1", "execute", binding, ...scope, "--json", "--command", sql]);

  const results = await Promise.allSettled(
    plan.map(async (step) => {
      console.log(describeStep(step, scope));
      const tracking = parseExecuteJson(await execute(step.binding, TRACKING_TABLES_SQL)).map((r) => r.name);
      if (tracking.includes(LEGACY.table)) {
        console.log(`${step.database} ${UPGRADE_NOTE}`);
        await apply(step.binding, override(step.entry, LEGACY, "legacy"));
        await execute(step.binding, adoptBaselinesSql(Boolean(step.control)));
      }
      await apply(step.tenant.binding, step.tenant.viaOverride ? override(step.entry, FOLDERS.tenant, "tenant") : []);
      if (step.control) await apply(step.control);
      console.log(`${step.database}: up to date`);
    }),
  );
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
