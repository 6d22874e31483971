import { env } from "cloudflare:workers";
import { shardD1, shardNumbers } from "../../src/db/shards";
import { sha256Hex } from "../../src/lib/crypto";

/** Every shard's database; locally shard 0 is the control database, so control rows with a tenant_id are covered too. */
const databases = () => shardNumbers(env).map((n) => ({ label: `shard${n}`, d1: shardD1(env, n) }));

/**
 * Whether a table has a tenant_id column, by database and table name. The columns are the migrations', the same
 * in every file of a run, so each table's pragma is read once per process; the table list itself is read on
 * every snapshot (a table no earlier snapshot saw is looked at then). Reading every table's pragma on every
 * snapshot was most of a snapshot's cost (~100 tables a database).
 */
const hasTenantColumn = new Map<string, boolean>();

/** The database's tables with a tenant_id column, by name. */
async function tenantTablesOf(label: string, d1: D1Database): Promise<string[]> {
  const tables = await d1
    .prepare(
      "select name from sqlite_master where type = 'table' and name not like '\\_%' escape '\\' and name not like 'sqlite%' and name not like 'd1\\_migrations%' escape '\\' order by name",
    )
    .all<{ name: string }>();
  for (const { name } of tables.results) {
    const key = `${label}.${name}`;
    if (hasTenantColumn.has(key)) continue;
    const cols = await d1.prepare(`pragma table_info("${name}")`).all<{ name: string }>();
    hasTenantColumn.set(
      key,
      cols.results.some((c) => c.name === "tenant_id"),
    );
  }
  return tables.results.map((t) => t.name).filter((name) => hasTenantColumn.get(`${label}.${name}`));
}

/** One select per table, sent in one batch (one round trip, one consistent read of the database). */
const readAll = (d1: D1Database, sqlOf: (table: string) => string, tables: string[], tenantId: string) =>
  tables.length
    ? d1.batch<Record<string, unknown>>(tables.map((name) => d1.prepare(sqlOf(name)).bind(tenantId)))
    : Promise.resolve([]);

/**
 * Row counts and a SHA-256 over every row of every table that has a tenant_id column, for one
 * tenant (read straight from D1). Two equal digests mean nothing of that tenant was written.
 */
export async function tenantSnapshot(tenantId: string) {
  const counts: Record<string, number> = {};
  const parts: string[] = [];
  for (const { label, d1 } of databases()) {
    const tables = await tenantTablesOf(label, d1);
    const results = await readAll(
      d1,
      (name) => `select * from "${name}" where tenant_id = ? order by rowid`,
      tables,
      tenantId,
    );
    tables.forEach((name, i) => {
      const rows = results[i]!.results;
      counts[name] = (counts[name] ?? 0) + rows.length;
      parts.push(`${label}.${name}:${JSON.stringify(rows)}`);
    });
  }
  return { tables: Object.keys(counts).length, counts, digest: await sha256Hex(parts.join("\n")) };
}

/** Every row of the tenant, keyed by table and rowid, for a row-by-row comparison. */
export async function tenantRows(tenantId: string): Promise<Map<string, string>> {
  const rows = new Map<string, string>();
  for (const { label, d1 } of databases()) {
    const tables = await tenantTablesOf(label, d1);
    const results = await readAll(
      d1,
      (name) => `select rowid as _rowid, * from "${name}" where tenant_id = ?`,
      tables,
      tenantId,
    );
    tables.forEach((name, i) => {
      for (const r of results[i]!.results) rows.set(`${label}.${name}:${r._rowid}`, JSON.stringify(r));
    });
  }
  return rows;
}

/**
 * The tenant's rows once the background work seeding started (event handlers: inbox items,
 * automation runs, rollups) has finished: two reads 1.5 s apart that agree. Taken straight after
 * seeding, a "before" raced those handlers and read as changed under load.
 */
export async function settledTenantRows(tenantId: string): Promise<Map<string, string>> {
  // settled: two quiet windows in a row; one quiet window is not enough when other files share the
  // cores and the event consumer waits its turn longer than a window (its dispatch marks rows later)
  let last = await tenantRows(tenantId);
  let quiet = 0;
  for (let i = 0; i < 30; i++) {
    await new Promise((r) => setTimeout(r, 1_500));
    const next = await tenantRows(tenantId);
    quiet = changedRows(last, next).length === 0 && next.size === last.size ? quiet + 1 : 0;
    if (quiet === 2) return next;
    last = next;
  }
  throw new Error(`tenant ${tenantId}'s rows never settled`);
}

/** Rows present before that changed or disappeared since (new rows are not counted). */
export const changedRows = (before: Map<string, string>, after: Map<string, string>) =>
  [...before].filter(([k, v]) => after.get(k) !== v).map(([k]) => k);
