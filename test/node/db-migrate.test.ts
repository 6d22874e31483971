import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error plain .mjs helper without types
import { openLocalD1 } from "../../scripts/lib/local-d1.mjs";
import * as controlSet from "../../src/db/schema-sets/control";
import * as tenantSet from "../../src/db/schema-sets/tenant";

// `npm run db:migrate` (scripts/db-migrate.mjs) on local D1 state in a copy of the checkout: a fresh clone, a
// checkout whose state the legacy folder built (the upgrade path), a single-database layout (DB only, as
// deployed environments are today) and a migration that fails. Local migrations are applied in the script's
// process with `wrangler d1 migrations apply --local`'s semantics (scripts/lib/local-migrations.mjs); the state
// is read back with the Miniflare wrangler ships, which opens the same files `wrangler dev` does, and the real
// wrangler (`d1 migrations list --local`) must read the same tracking rows.
const root = path.resolve(import.meta.dirname, "../..");
const { Miniflare } = createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"))("miniflare");
const CONTROL_ID = "00000000-0000-0000-0000-000000000000";
const SHARD_1_ID = "00000000-0000-0000-0000-000000000001";
const names = (mod: Record<string, unknown>) =>
  Object.values(mod)
    .filter((v): v is SQLiteTable => v instanceof SQLiteTable)
    .map((t) => getTableConfig(t).name);
const TENANT = names(tenantSet).sort();
const CONTROL = names(controlSet).sort();
const sqlFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort();

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function checkout({ singleDatabase = false } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), "db-migrate-"));
  dirs.push(dir);
  let toml = readFileSync(path.join(root, "wrangler.toml"), "utf8");
  // a deployment's shape: DB is shard 0, no SHARD_n declared
  if (singleDatabase)
    toml = toml
      .split(/\n(?=\[)/)
      .filter((b) => !(b.startsWith("[[d1_databases]]") && /binding = "SHARD_/.test(b)))
      .join("\n");
  writeFileSync(path.join(dir, "wrangler.toml"), toml);
  cpSync(path.join(root, "migrations"), path.join(dir, "migrations"), { recursive: true });
  symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"));
  return dir;
}

/** Runs the script as `npm run db:migrate` would; asynchronous, so the scenarios below run side by side. */
function dbMigrate(dir: string): Promise<{ status: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, "scripts/db-migrate.mjs"), "--local"], {
      cwd: dir,
      env: { ...process.env, CI: "true" },
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, out }));
  });
}

/** The real wrangler of the project in a checkout (its stdout and stderr). */
function wrangler(dir: string, args: string[]): Promise<{ status: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, "node_modules/.bin/wrangler"), ...args], {
      cwd: dir,
      env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, out }));
  });
}

/** The "<database>: applied <folder>/<file>" lines of a run, in order. */
const appliedLines = (out: string) => out.match(/^\S+: applied \S+$/gm) ?? [];
const appliedAll = (database: string, folder: string, files = sqlFiles(path.join(root, folder))) =>
  files.map((f) => `${database}: applied ${folder}/${f}`);

/** The local databases of a checkout, as `wrangler dev` persists them. */
async function withD1<T>(dir: string, fn: (db: { control: D1Database; shard1: D1Database }) => Promise<T>): Promise<T> {
  const mf = new Miniflare({
    modules: true,
    script: "export default {}",
    d1Databases: { DB: CONTROL_ID, SHARD_1: SHARD_1_ID },
    d1Persist: path.join(dir, ".wrangler/state/v3/d1"),
  });
  try {
    return await fn({ control: await mf.getD1Database("DB"), shard1: await mf.getD1Database("SHARD_1") });
  } finally {
    await mf.dispose();
  }
}

const tables = async (d1: D1Database) =>
  (
    await d1
      .prepare(
        "select name from sqlite_master where type = 'table' and name not like '\\_%' escape '\\' and name not like 'sqlite%' order by name",
      )
      .all<{ name: string }>()
  ).results.map((r) => r.name);
const applied = async (d1: D1Database, table: string) =>
  (await d1.prepare(`select name from ${table} order by id`).all<{ name: string }>()).results.map((r) => r.name);
const withTracking = (set: string[], ...tracking: string[]) => [...set, ...tracking].sort();

/**
 * What the legacy folder (one folder, wrangler's default d1_migrations table) left on both databases before the
 * split: each file with its tracking row, one batch per file. Split at drizzle-kit's breakpoints, not by the
 * splitter under test; sent through scripts/lib/local-d1.mjs's Worker (one request per batch: Miniflare's Node
 * proxy costs a round trip per statement, ~20 s of CPU for this folder on two databases).
 */
async function applyLegacy(dir: string) {
  const local = openLocalD1(path.join(dir, ".wrangler/state"), [
    { binding: "DB", database_id: CONTROL_ID },
    { binding: "SHARD_1", database_id: SHARD_1_ID },
  ]);
  const legacy = path.join(root, "migrations/legacy");
  try {
    for (const binding of ["DB", "SHARD_1"]) {
      const db = local.database(binding);
      await db.batch([
        "CREATE TABLE IF NOT EXISTS d1_migrations(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)",
      ]);
      for (const file of sqlFiles(legacy)) {
        const statements = readFileSync(path.join(legacy, file), "utf8")
          .split("--> statement-breakpoint")
          .map((sql) => sql.trim())
          .filter(Boolean);
        await db.batch([...statements, `insert into d1_migrations (name) values ('${file}')`]);
      }
    }
  } finally {
    await local.dispose();
  }
}

const NOW = "2026-11-25T00:00:00.000Z";

/** Migration files added to a checkout, by their path under migrations/. */
function writeMigrations(dir: string, files: Record<string, string>) {
  for (const [name, sql] of Object.entries(files)) writeFileSync(path.join(dir, "migrations", name), sql);
}

/** The next migration of each folder, as drizzle-kit would write them after the split. */
const writeProbeMigrations = (dir: string) =>
  writeMigrations(dir, {
    "tenant/9999_probe.sql": "CREATE TABLE `probe_tenant` (`id` text PRIMARY KEY NOT NULL, `tenant_id` text NOT NULL);",
    "control/9999_probe.sql": "CREATE TABLE `probe_control` (`id` text PRIMARY KEY NOT NULL);",
  });

// the scenarios use their own checkouts: run side by side. The timeout is a hang guard: ~10 s of CPU a
// scenario, but the fresh clone's took 114 s of wall time with the 2-core machine at load 15
describe.concurrent("npm run db:migrate (--local)", { timeout: 300_000 }, () => {
  it("fresh clone: the control database gets both folders, shard 1 the tenant folder only, as wrangler records them; a re-run applies nothing; a new migration of each folder is applied alone", async () => {
    const dir = checkout();
    const first = await dbMigrate(dir);
    expect(first.status, first.out).toBe(0);
    // no wrangler process: the script says which file it applied to which database, in order
    expect(first.out).not.toMatch(/\$ wrangler/);
    expect(appliedLines(first.out)).toEqual([
      ...appliedAll("reputation-ops", "migrations/tenant"),
      ...appliedAll("reputation-ops", "migrations/control"),
      ...appliedAll("reputation-ops-shard-1", "migrations/tenant"),
    ]);
    await withD1(dir, async ({ control, shard1 }) => {
      expect(await tables(control)).toEqual(
        withTracking([...TENANT, ...CONTROL], "d1_migrations_control", "d1_migrations_tenant"),
      );
      expect(await tables(shard1)).toEqual(withTracking(TENANT, "d1_migrations_tenant"));
      expect(await applied(control, "d1_migrations_tenant")).toEqual(sqlFiles(path.join(root, "migrations/tenant")));
      expect(await applied(control, "d1_migrations_control")).toEqual(sqlFiles(path.join(root, "migrations/control")));
      expect(await applied(shard1, "d1_migrations_tenant")).toEqual(sqlFiles(path.join(root, "migrations/tenant")));
      // the hand-written part of the tenant baseline: the house agency and the contact-count triggers (a
      // BEGIN ... END body with its own semicolons: wrangler's splitter keeps it whole), on every database
      for (const d1 of [control, shard1]) {
        expect((await d1.prepare("select id from agencies").all()).results).toEqual([{ id: "agency_house" }]);
        expect(
          (await d1.prepare("select name from sqlite_master where type = 'trigger' order by name").all()).results,
        ).toEqual([{ name: "contacts_count_delete" }, { name: "contacts_count_insert" }]);
      }
      await shard1.batch([
        shard1
          .prepare(
            "insert into tenants (id, agency_id, name, slug, created_at, updated_at, shard) values ('t_new', 'agency_house', 'New', 'new', ?, ?, 1)",
          )
          .bind(NOW, NOW),
        shard1
          .prepare(
            "insert into contacts (id, tenant_id, created_at, updated_at) values ('c_1', 't_new', ?1, ?1), ('c_2', 't_new', ?1, ?1)",
          )
          .bind(NOW),
        shard1.prepare("delete from contacts where id = 'c_2'"),
      ]);
      expect((await shard1.prepare("select tenant_id, total from contact_counts").all()).results).toEqual([
        { tenant_id: "t_new", total: 1 },
      ]);
    });
    // a re-run (every `npm run dev` after the first): nothing applied, nothing else changed
    const again = await dbMigrate(dir);
    expect(again.status, again.out).toBe(0);
    expect(again.out.match(/has nothing to apply/g)).toHaveLength(3);
    expect(appliedLines(again.out)).toEqual([]);
    expect(again.out).not.toMatch(/\$ wrangler|predates the split/);

    // the next migration of each folder, as drizzle-kit would write it. The real wrangler reads the tracking
    // rows the script wrote and finds only the new file to apply: the two cannot drift apart (table, columns, names)
    writeProbeMigrations(dir);
    const listed = await wrangler(dir, ["d1", "migrations", "list", "SHARD_1", "--local"]);
    expect(listed.status, listed.out).toBe(0);
    expect(listed.out).toContain("Migrations to be applied");
    expect(listed.out.match(/\b\d{4}_\w+\.sql\b/g)).toEqual(["9999_probe.sql"]);
    const next = await dbMigrate(dir);
    expect(next.status, next.out).toBe(0);
    expect(appliedLines(next.out)).toEqual([
      "reputation-ops: applied migrations/tenant/9999_probe.sql",
      "reputation-ops: applied migrations/control/9999_probe.sql",
      "reputation-ops-shard-1: applied migrations/tenant/9999_probe.sql",
    ]);
    await withD1(dir, async ({ control, shard1 }) => {
      expect(await tables(control)).toEqual(expect.arrayContaining(["probe_tenant", "probe_control"]));
      expect(await tables(shard1)).toContain("probe_tenant");
      expect(await tables(shard1)).not.toContain("probe_control");
      expect((await applied(shard1, "d1_migrations_tenant")).at(-1)).toBe("9999_probe.sql");
      expect((await applied(control, "d1_migrations_control")).at(-1)).toBe("9999_probe.sql");
    });
  });

  it("checkout migrated before the split: keeps its rows, records the baselines without running them, applies the migrations written after the split", async () => {
    const dir = checkout();
    await applyLegacy(dir);
    await withD1(dir, async ({ control, shard1 }) => {
      for (const d1 of [control, shard1]) {
        await d1
          .prepare(
            "insert into tenants (id, agency_id, name, slug, created_at, updated_at, shard) values ('t_old', 'agency_house', 'Old', 'old', ?, ?, 1)",
          )
          .bind(NOW, NOW)
          .run();
      }
      await shard1
        .prepare("insert into contacts (id, tenant_id, created_at, updated_at) values ('c_old', 't_old', ?, ?)")
        .bind(NOW, NOW)
        .run();
    });
    const upgrade = await dbMigrate(dir);
    expect(upgrade.status, upgrade.out).toBe(0);
    expect(upgrade.out.match(/predates the split/g)).toHaveLength(2);
    // the legacy folder was complete (nothing of it applied again); the baselines are not among the files applied
    const afterSplit = (folder: string, baseline: number) => sqlFiles(path.join(root, folder)).slice(baseline);
    expect(appliedLines(upgrade.out)).toEqual([
      ...appliedAll("reputation-ops", "migrations/tenant", afterSplit("migrations/tenant", 2)),
      ...appliedAll("reputation-ops", "migrations/control", afterSplit("migrations/control", 1)),
      ...appliedAll("reputation-ops-shard-1", "migrations/tenant", afterSplit("migrations/tenant", 2)),
    ]);
    // nothing was created twice (a CREATE TABLE of an existing table fails the run): the baselines are
    // recorded, not run; only the migrations written after the split are applied
    const legacy = sqlFiles(path.join(root, "migrations/legacy"));
    await withD1(dir, async ({ control, shard1 }) => {
      expect(await applied(control, "d1_migrations_legacy")).toEqual(legacy);
      // the baselines (0000, 0001) recorded, the tenant migrations written after the split applied
      expect(await applied(control, "d1_migrations_tenant")).toEqual(sqlFiles(path.join(root, "migrations/tenant")));
      expect(await applied(control, "d1_migrations_control")).toEqual(sqlFiles(path.join(root, "migrations/control")));
      expect(await applied(shard1, "d1_migrations_tenant")).toEqual(sqlFiles(path.join(root, "migrations/tenant")));
      expect(await tables(shard1)).not.toContain("d1_migrations_control");
      expect((await shard1.prepare("select tenant_id, total from contact_counts").all()).results).toEqual([
        { tenant_id: "t_old", total: 1 },
      ]);
      expect((await control.prepare("select id, shard from tenants").all()).results).toEqual([
        { id: "t_old", shard: 1 },
      ]);
    });
  });

  it("single-database layout (DB only): DB gets the tenant folder, then the control folder", async () => {
    const dir = checkout({ singleDatabase: true });
    const r = await dbMigrate(dir);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toMatch(/migrating reputation-ops \(control database: tenant \+ control folders/);
    expect(r.out).not.toMatch(/shard-1/);
    expect(appliedLines(r.out)).toEqual([
      ...appliedAll("reputation-ops", "migrations/tenant"),
      ...appliedAll("reputation-ops", "migrations/control"),
    ]);
    await withD1(dir, async ({ control }) => {
      expect(await tables(control)).toEqual(
        withTracking([...TENANT, ...CONTROL], "d1_migrations_control", "d1_migrations_tenant"),
      );
      expect(await applied(control, "d1_migrations_tenant")).toEqual(sqlFiles(path.join(root, "migrations/tenant")));
    });
  });

  it("a migration that fails: rolled back whole, named with SQLite's message, the files before it kept, nothing after it run, on every database", async () => {
    const dir = checkout();
    const tenant = sqlFiles(path.join(root, "migrations/tenant"));
    writeMigrations(dir, {
      // hand written, no statement-breakpoint: the first statement succeeds, the second fails
      "tenant/9998_broken.sql":
        "CREATE TABLE `broken_half` (`id` text PRIMARY KEY NOT NULL);\nINSERT INTO `no_such_table` (`id`) VALUES ('x');\n",
      "tenant/9999_after.sql": "CREATE TABLE `after_broken` (`id` text PRIMARY KEY NOT NULL);",
    });
    const r = await dbMigrate(dir);
    expect(r.status, r.out).toBe(1);
    for (const database of ["reputation-ops", "reputation-ops-shard-1"])
      expect(r.out).toContain(
        `${database}: migrations/tenant/9998_broken.sql failed and was rolled back: no such table: no_such_table: SQLITE_ERROR`,
      );
    // every file before the broken one, on both databases; the control folder waits for the tenant folder
    expect(appliedLines(r.out)).toEqual([
      ...appliedAll("reputation-ops", "migrations/tenant", tenant),
      ...appliedAll("reputation-ops-shard-1", "migrations/tenant", tenant),
    ]);
    await withD1(dir, async ({ control, shard1 }) => {
      for (const d1 of [control, shard1]) {
        expect(await applied(d1, "d1_migrations_tenant")).toEqual(tenant);
        expect(await tables(d1)).not.toContain("broken_half");
        expect(await tables(d1)).not.toContain("after_broken");
      }
      expect(await tables(control)).not.toContain("d1_migrations_control");
    });
  });
});
