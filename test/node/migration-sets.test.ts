import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
// @ts-expect-error plain .mjs helper without types
import { readRawConfig } from "../../scripts/cloudflare/env-config.mjs";
// @ts-expect-error plain .mjs helper without types
import { d1Databases, FOLDERS, migrationPlan } from "../../scripts/db-migrate.mjs";
import * as schema from "../../src/db/schema";
import * as controlSet from "../../src/db/schema-sets/control";
import * as tenantSet from "../../src/db/schema-sets/tenant";
import { CONTROL_TABLES, MIRRORED_TABLES } from "../../src/db/shards";

// Two migration folders (docs/scaling.md): migrations/tenant/ on every database, migrations/control/
// on the control database only. Their drizzle-kit schemas must partition the tables, so a new table
// lands in exactly one folder, and the right one.
const root = path.resolve(import.meta.dirname, "../..");
const tableNames = (mod: Record<string, unknown>) =>
  Object.values(mod)
    .filter((v): v is SQLiteTable => v instanceof SQLiteTable)
    .map((t) => getTableConfig(t).name)
    .sort();

/** The tables a folder's migrations leave behind, replaying CREATE / DROP / RENAME in file order. */
function tablesCreatedBy(folder: string) {
  const dir = path.join(root, "migrations", folder);
  const tables = new Set<string>();
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()) {
    const sql = readFileSync(path.join(dir, file), "utf8");
    for (const m of sql.matchAll(
      /CREATE TABLE (?:IF NOT EXISTS )?`?(\w+)`?|DROP TABLE (?:IF EXISTS )?`?(\w+)`?|ALTER TABLE `?(\w+)`? RENAME TO `?(\w+)`?/gi,
    )) {
      if (m[1]) tables.add(m[1]);
      else if (m[2]) tables.delete(m[2]);
      else if (tables.delete(m[3]!)) tables.add(m[4]!);
    }
  }
  return [...tables].sort();
}

describe("migration folders", () => {
  const all = tableNames(schema);
  const tenant = tableNames(tenantSet);
  const control = tableNames(controlSet);

  it("partition every table of src/db/schema between the tenant and the control set", () => {
    expect(all.length).toBeGreaterThan(60);
    expect(tenant.filter((t) => control.includes(t))).toEqual([]);
    expect([...tenant, ...control].sort()).toEqual(all);
  });

  it("put exactly CONTROL_TABLES minus the shard mirrors in the control set, and the mirrors in the tenant set", () => {
    expect(control).toEqual([...CONTROL_TABLES].filter((t) => !MIRRORED_TABLES.has(t)).sort());
    expect([...MIRRORED_TABLES].sort()).toEqual(["agencies", "tenants", "users"]);
    for (const t of MIRRORED_TABLES) expect(tenant, t).toContain(t);
  });

  it("hold migrations that create exactly their set's tables (generated into the right folder)", () => {
    expect(tablesCreatedBy("tenant")).toEqual(tenant);
    expect(tablesCreatedBy("control")).toEqual(control);
  });

  it("start with the baselines scripts/db-migrate.mjs records on a database migrated before the split", () => {
    for (const [folder, { baseline }] of Object.entries(FOLDERS as Record<string, { baseline: string[] }>)) {
      const files = readdirSync(path.join(root, "migrations", folder))
        .filter((f) => f.endsWith(".sql"))
        .sort();
      expect(files.slice(0, baseline.length), folder).toEqual(baseline);
    }
    // the legacy folder is frozen: its last migration is the state the baselines reproduce
    expect(
      readdirSync(path.join(root, "migrations", "legacy"))
        .filter((f) => f.endsWith(".sql"))
        .sort()
        .at(-1),
    ).toBe("0024_tenant_shards.sql");
  });

  it("are declared per binding in wrangler.toml: DB the control folder, each SHARD_n the tenant folder", () => {
    const raw = readRawConfig(path.join(root, "wrangler.toml"));
    for (const env of [undefined, "staging", "production"]) {
      for (const d of d1Databases(raw, env) as {
        binding: string;
        migrations_dir: string;
        migrations_table: string;
      }[]) {
        const want = d.binding === "DB" ? FOLDERS.control : FOLDERS.tenant;
        expect([d.binding, d.migrations_dir, d.migrations_table], env).toEqual([d.binding, want.dir, want.table]);
      }
    }
    // locally DB and SHARD_0 are one database: it gets the tenant folder (through SHARD_0), then the control folder
    expect(migrationPlan(d1Databases(raw))).toMatchObject([
      { database: "reputation-ops", tenant: { binding: "SHARD_0", viaOverride: false }, control: "DB" },
      { database: "reputation-ops-shard-1", tenant: { binding: "SHARD_1", viaOverride: false }, control: null },
    ]);
    // a deployment with DB only (shard 0): both folders on DB, the tenant one through a generated config
    expect(migrationPlan(d1Databases(raw, "production"))).toMatchObject([
      { binding: "DB", tenant: { binding: "DB", viaOverride: true }, control: "DB" },
    ]);
  });

  it("refuse a binding that declares the wrong folder", () => {
    const wrong = [
      {
        binding: "SHARD_1",
        database_id: "x",
        migrations_dir: "migrations/control",
        migrations_table: "d1_migrations_control",
      },
    ];
    expect(() => migrationPlan(wrong)).toThrow(/SHARD_1 must declare migrations_dir = "migrations\/tenant"/);
  });
});
