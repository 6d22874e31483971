import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import * as tenantSet from "../../src/db/schema-sets/tenant";
import { MIRRORED_TABLES } from "../../src/db/shards";

/**
 * docs/ARCHITECTURE.md, "Data and writes": a tenant table carries `tenant_id` (queries filter on it; a
 * tenant move copies exactly the tables that have it, src/db/tenant-move.ts). The tables of the tenant
 * migration set without it are these, each with why; a new table without `tenant_id` fails here until
 * it gets the column or a reason.
 */
const EXEMPT: Record<string, string> = {
  agencies:
    "a control-plane directory row, mirrored on every shard so tenant rows can reference it by foreign key; an agency is above its tenants",
  tenants:
    "a control-plane directory row, mirrored on every shard so tenant rows can reference it by foreign key; its own id is the tenant",
  frequency_cap_guard:
    "never holds a row: its CHECK fails every insert, so a send batch that would pass a frequency cap fails whole (docs/sending.md)",
};

const tables = Object.values(tenantSet as Record<string, unknown>)
  .filter((v): v is SQLiteTable => v instanceof SQLiteTable)
  .map((t) => getTableConfig(t));

describe("tenant tables carry tenant_id", () => {
  it("every table of the tenant migration set has tenant_id, or is exempt with its reason", () => {
    expect(tables.length).toBeGreaterThan(50);
    const without = tables.filter((t) => !t.columns.some((c) => c.name === "tenant_id")).map((t) => t.name);
    expect(without.filter((name) => !(name in EXEMPT))).toEqual([]);
    // no stale exemption: each one is a table of the set that still lacks the column
    expect(Object.keys(EXEMPT).sort()).toEqual([...without].sort());
  });

  it("the mirrored directory tables are exempt only as mirrors", () => {
    for (const name of ["agencies", "tenants"]) expect(MIRRORED_TABLES.has(name), name).toBe(true);
  });
});
