import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { afterAll, describe, expect, it } from "vitest";
import * as controlSet from "../../src/db/schema-sets/control";
import * as tenantSet from "../../src/db/schema-sets/tenant";

// `npm run db:migrate` (scripts/db-migrate.mjs) with the real wrangler, on local D1 state in a copy of
// the checkout: a fresh clone, a checkout whose state the legacy folder built (the upgrade path), and a
// single-database layout (DB only, as deployed environments are today). The state is read back with
// the Miniflare wrangler ships, which opens the same files `wrangler dev` does.
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

/** What the legacy folder (one folder, wrangler's default d1_migrations table) left on a database before the split. */
async function applyLegacy(d1: D1Database) {
  await d1
    .prepare(
      "CREATE TABLE IF NOT EXISTS d1_migrations(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)",
    )
    .run();
  const dir = path.join(root, "migrations/legacy");
  for (const file of sqlFiles(dir)) {
    for (const sql of readFileSync(path.join(dir, file), "utf8")
      .split("--> statement-breakpoint")
      .map((s) => s.trim())
      .filter(Boolean))
      await d1.prepare(sql).run();
    await d1.prepare("insert into d1_migrations (name) values (?)").bind(file).run();
  }
}

const NOW = "2026-11-25T00:00:00.000Z";

/** The next migration of each folder, as drizzle-kit would write them after the split. */
function writeProbeMigrations(dir: string) {
  writeFileSync(
    path.join(dir, "migrations/tenant/9999_probe.sql"),
    "CREATE TABLE `probe_tenant` (`id` text PRIMARY KEY NOT NULL, `tenant_id` text NOT NULL);",
  );
  writeFileSync(
    path.join(dir, "migrations/control/9999_probe.sql"),
    "CREATE TABLE `probe_control` (`id` text PRIMARY KEY NOT NULL);",
  );
}

// the three scenarios use their own checkouts: run side by side (each is mostly waiting on wrangler processes)
describe.concurrent("npm run db:migrate (--local, real wrangler)", { timeout: 420_000 }, () => {
  it("fresh clone: the control database gets both folders, shard 1 the tenant folder only; a re-run starts no wrangler; a new migration of each folder is applied alone", async () => {
    const dir = checkout();
    const first = await dbMigrate(dir);
    expect(first.status, first.out).toBe(0);
    await withD1(dir, async ({ control, shard1 }) => {
      expect(await tables(control)).toEqual(
        withTracking([...TENANT, ...CONTROL], "d1_migrations_control", "d1_migrations_tenant"),
      );
      expect(await tables(shard1)).toEqual(withTracking(TENANT, "d1_migrations_tenant"));
      expect(await applied(control, "d1_migrations_tenant")).toEqual(sqlFiles(path.join(root, "migrations/tenant")));
      expect(await applied(control, "d1_migrations_control")).toEqual(sqlFiles(path.join(root, "migrations/control")));
      expect(await applied(shard1, "d1_migrations_tenant")).toEqual(sqlFiles(path.join(root, "migrations/tenant")));
      // the hand-written part of the tenant baseline: the house agency and the contact-count triggers, on every database
      for (const d1 of [control, shard1]) {
        expect((await d1.prepare("select id from agencies").all()).results).toEqual([{ id: "agency_house" }]);
        expect(
          (await d1.prepare("select name from sqlite_master where type = 'trigger' order by name").all()).results,
        ).toEqual([{ name: "contacts_count_delete" }, { name: "contacts_count_insert" }]);
      }
    });
    // a re-run (every `npm run dev` after the first): the tracking tables read in-process, no wrangler started
    const again = await dbMigrate(dir);
    expect(again.status, again.out).toBe(0);
    expect(again.out.match(/has nothing to apply/g)).toHaveLength(3);
    expect(again.out).not.toMatch(/\$ wrangler|predates the split|Migrations to be applied/);

    // the next migration of each folder, as drizzle-kit would write it: only that one goes to wrangler
    writeProbeMigrations(dir);
    const next = await dbMigrate(dir);
    expect(next.status, next.out).toBe(0);
    expect(next.out.match(/Migrations to be applied/g)).toHaveLength(3);
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
    await withD1(dir, async ({ control, shard1 }) => {
      await applyLegacy(control);
      await applyLegacy(shard1);
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

  it("single-database layout (DB only): DB gets the tenant folder through a generated config, then the control folder", async () => {
    const dir = checkout({ singleDatabase: true });
    const r = await dbMigrate(dir);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toMatch(/migrating reputation-ops \(control database: tenant \+ control folders/);
    expect(r.out).not.toMatch(/shard-1/);
    await withD1(dir, async ({ control }) => {
      expect(await tables(control)).toEqual(
        withTracking([...TENANT, ...CONTROL], "d1_migrations_control", "d1_migrations_tenant"),
      );
      expect(await applied(control, "d1_migrations_tenant")).toEqual(sqlFiles(path.join(root, "migrations/tenant")));
    });
    const config = JSON.parse(readFileSync(path.join(dir, ".wrangler/tmp/migrate-DB-tenant.json"), "utf8"));
    expect(config.d1_databases).toEqual([
      {
        binding: "DB",
        database_name: "reputation-ops",
        database_id: CONTROL_ID,
        migrations_dir: path.join(dir, "migrations/tenant"),
        migrations_table: "d1_migrations_tenant",
      },
    ]);
  });
});
