import { env } from "cloudflare:workers";
import { sha256Hex } from "../../src/lib/crypto";

/**
 * Row counts and a SHA-256 over every row of every table that has a tenant_id column, for one
 * tenant (read straight from D1). Two equal digests mean nothing of that tenant was written.
 */
export async function tenantSnapshot(tenantId: string) {
  const tables = await env.DB.prepare("select name from sqlite_master where type = 'table' and name not like '\\_%' escape '\\' and name not like 'sqlite%' and name != 'd1_migrations' order by name").all<{ name: string }>();
  const counts: Record<string, number> = {};
  const parts: string[] = [];
  for (const { name } of tables.results) {
    const cols = await env.DB.prepare(`pragma table_info("${name}")`).all<{ name: string }>();
    if (!cols.results.some((c) => c.name === "tenant_id")) continue;
    const rows = await env.DB.prepare(`select * from "${name}" where tenant_id = ? order by rowid`).bind(tenantId).all();
    counts[name] = rows.results.length;
    parts.push(`${name}:${JSON.stringify(rows.results)}`);
  }
  return { tables: Object.keys(counts).length, counts, digest: await sha256Hex(parts.join("\n")) };
}

/** Every row of the tenant, keyed by table and rowid, for a row-by-row comparison. */
export async function tenantRows(tenantId: string): Promise<Map<string, string>> {
  const rows = new Map<string, string>();
  const tables = await env.DB.prepare("select name from sqlite_master where type = 'table' and name not like '\\_%' escape '\\' and name not like 'sqlite%' and name != 'd1_migrations'").all<{ name: string }>();
  for (const { name } of tables.results) {
    const cols = await env.DB.prepare(`pragma table_info("${name}")`).all<{ name: string }>();
    if (!cols.results.some((c) => c.name === "tenant_id")) continue;
    const result = await env.DB.prepare(`select rowid as _rowid, * from "${name}" where tenant_id = ?`).bind(tenantId).all<Record<string, unknown>>();
    for (const r of result.results) rows.set(`${name}:${r._rowid}`, JSON.stringify(r));
  }
  return rows;
}

/** Rows present before that changed or disappeared since (new rows are not counted). */
export const changedRows = (before: Map<string, string>, after: Map<string, string>) =>
  [...before].filter(([k, v]) => after.get(k) !== v).map(([k]) => k);
