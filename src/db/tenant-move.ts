import { sha256Hex } from "../lib/crypto";
import { CONTROL_TABLES } from "./shards";

/**
 * The row mechanics of moving a tenant between shards, one bounded chunk at a time (the job that
 * drives them: src/modules/admin/background.ts; docs/scaling.md, "Moving a tenant"):
 * - chunks are read by primary-key keyset (`(pk) > (cursor) order by pk limit n`), so a slice can
 *   stop anywhere and the next resumes from the saved cursor;
 * - copies are `insert or ignore` by primary key: a redelivered slice writes nothing twice;
 * - a table's checksum is a chain over its chunks' hashes in key order, computed the same way on
 *   both sides (equal rows and equal chunk size give equal chunks);
 * - deletes take `n` rows at a time, children before parents.
 */
export interface TableInfo {
  name: string;
  columns: string[];
  primaryKey: string[];
  parents: string[];
  /** columns referencing users (control rows): the target shard gets stubs of those users first */
  userColumns: string[];
}

export type Row = Record<string, unknown>;

/** contact_counts is written by triggers on contacts (migrations/tenant/0001_house_agency_contact_counts.sql) */
const TRIGGER_MAINTAINED = new Set(["contact_counts"]);

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function tableInfo(d1: D1Database, name: string): Promise<TableInfo | null> {
  const cols = await d1.prepare(`pragma table_info(${q(name)})`).all<{ name: string; pk: number }>();
  if (!cols.results.some((c) => c.name === "tenant_id")) return null;
  const fks = await d1.prepare(`pragma foreign_key_list(${q(name)})`).all<{ table: string; from: string }>();
  const pk = cols.results
    .filter((c) => c.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((c) => c.name);
  // every tenant table has a primary key (keyset and insert-or-ignore rely on it); rowid would differ across databases
  if (!pk.length) throw new Error(`table ${name} has no primary key: it cannot be moved`);
  return {
    name,
    columns: cols.results.map((c) => c.name),
    primaryKey: pk,
    parents: fks.results.map((f) => f.table).filter((t) => t !== name),
    userColumns: fks.results.filter((f) => f.table === "users").map((f) => f.from),
  };
}

/** The schema only changes with a deploy (a new isolate): one discovery per isolate (the value, not a shared promise). */
let discovered: TableInfo[] | null = null;

/** Every table with a tenant_id column that is not a control-plane table, parents first; trigger-kept tables last. */
export async function tenantTables(d1: D1Database): Promise<TableInfo[]> {
  discovered ??= await discoverTables(d1);
  return discovered;
}

async function discoverTables(d1: D1Database): Promise<TableInfo[]> {
  const names = await d1
    .prepare(
      "select name from sqlite_master where type = 'table' and name not like '\\_%' escape '\\' and name not like 'sqlite%' and name not like 'd1\\_migrations%' escape '\\'",
    )
    .all<{ name: string }>();
  const infos = (
    await Promise.all(names.results.filter((n) => !CONTROL_TABLES.has(n.name)).map((n) => tableInfo(d1, n.name)))
  ).filter((t): t is TableInfo => t !== null);
  const byName = new Map(infos.map((t) => [t.name, t]));
  const ordered: TableInfo[] = [];
  const seen = new Set<string>();
  const visit = (t: TableInfo) => {
    if (seen.has(t.name)) return;
    seen.add(t.name);
    for (const p of t.parents) if (byName.has(p)) visit(byName.get(p)!);
    ordered.push(t);
  };
  infos.sort((a, b) => a.name.localeCompare(b.name)).forEach(visit);
  // tables kept by triggers on others' inserts go last and overwrite what the triggers wrote
  return [
    ...ordered.filter((t) => !TRIGGER_MAINTAINED.has(t.name)),
    ...ordered.filter((t) => TRIGGER_MAINTAINED.has(t.name)),
  ];
}

/** Up to `limit` of the tenant's rows after `after` (primary-key values) in key order. */
export async function readChunk(
  d1: D1Database,
  t: TableInfo,
  tenantId: string,
  after: unknown[] | null,
  limit: number,
): Promise<Row[]> {
  const pk = t.primaryKey.map(q).join(", ");
  const keyset = after ? ` and (${pk}) > (${after.map(() => "?").join(", ")})` : "";
  const res = await d1
    .prepare(
      `select ${t.columns.map(q).join(", ")} from ${q(t.name)} where tenant_id = ?${keyset} order by ${pk} limit ?`,
    )
    .bind(tenantId, ...(after ?? []), limit)
    .all<Row>();
  return res.results;
}

export const keyOf = (t: TableInfo, row: Row): unknown[] => t.primaryKey.map((c) => row[c]);

/** D1 caps a bound string at 2 MB: rows travel as JSON parameters of at most this many characters (3 UTF-8 bytes each at worst). */
const MAX_PARAM_CHARS = 600_000;

/** Inserts the rows (one statement per JSON part, one batch); a row already there is left as it is. */
export async function copyRows(d1: D1Database, t: TableInfo, rows: Row[]): Promise<void> {
  if (!rows.length) return;
  const cols = t.columns.map(q).join(", ");
  const values = t.columns.map((c) => `json_extract(value, '$.${c.replace(/'/g, "''")}')`).join(", ");
  // trigger-kept rows exist already on the target (the triggers wrote them): the copy overwrites them
  const verb = TRIGGER_MAINTAINED.has(t.name) ? "insert or replace" : "insert or ignore";
  const sql = `${verb} into ${q(t.name)} (${cols}) select ${values} from json_each(?)`;
  const parts: string[] = [];
  let part: string[] = [];
  let size = 2;
  for (const row of rows) {
    const s = JSON.stringify(row);
    if (part.length && size + s.length + 1 > MAX_PARAM_CHARS) {
      parts.push(`[${part.join(",")}]`);
      part = [];
      size = 2;
    }
    part.push(s);
    size += s.length + 1;
  }
  parts.push(`[${part.join(",")}]`);
  await d1.batch(parts.map((p) => d1.prepare(sql).bind(p)));
}

/** The running checksum after one more chunk: a hash over the previous digest and the chunk's hash. */
export async function addChunk(t: TableInfo, digest: string, rows: Row[]): Promise<string> {
  const chunk = await sha256Hex(JSON.stringify(rows.map((r) => t.columns.map((c) => r[c]))));
  return sha256Hex(`${digest}:${chunk}`);
}

/** Deletes up to `limit` of the tenant's rows; returns how many went. */
export async function deleteChunk(d1: D1Database, t: TableInfo, tenantId: string, limit: number): Promise<number> {
  const res = await d1
    .prepare(`delete from ${q(t.name)} where rowid in (select rowid from ${q(t.name)} where tenant_id = ? limit ?)`)
    .bind(tenantId, limit)
    .run();
  return res.meta.changes ?? 0;
}

/** The distinct users a table's rows reference (alert_subscriptions.user_id): the target needs their stubs first. */
export async function referencedUsers(d1: D1Database, t: TableInfo, tenantId: string): Promise<string[]> {
  const ids = new Set<string>();
  for (const col of t.userColumns) {
    const res = await d1
      .prepare(`select distinct ${q(col)} as id from ${q(t.name)} where tenant_id = ? and ${q(col)} is not null`)
      .bind(tenantId)
      .all<{ id: string }>();
    for (const r of res.results) ids.add(r.id);
  }
  return [...ids];
}

/** The tables holding any of the tenant's rows on this database. */
export async function tablesWithRows(d1: D1Database, tables: TableInfo[], tenantId: string): Promise<string[]> {
  const found = await d1.batch(
    tables.map((t) => d1.prepare(`select 1 as found from ${q(t.name)} where tenant_id = ? limit 1`).bind(tenantId)),
  );
  return tables.filter((_, i) => found[i]!.results.length > 0).map((t) => t.name);
}
