import { eq } from "drizzle-orm";
import type { Env } from "../env";
import { sha256Hex } from "../lib/crypto";
import { nowIso } from "../lib/time";
import { tenants } from "./schema";
import { recordShardSizes } from "./shard-sizes";
import { CONTROL_TABLES, controlDb, forgetTenantShard, mirrorTenant, mirrorUser, shardD1, shardDb, shardNumbers } from "./shards";

/**
 * Moving a tenant's rows from its shard to another (docs/scaling.md, "Moving a tenant"):
 * 1. fence: the directory row gets moving_since; writes answer 503 TENANT_MOVING + Retry-After
 *    (other isolates see it within their tenant-ref TTL: the caller waits `settleMs` first);
 * 2. copy every tenant-owned table, parents before children (foreign keys), in pages;
 * 3. verify per table: row count and a SHA-256 over the rows in primary-key order, source = target;
 * 4. flip the directory to the target and lift the fence;
 * 5. delete the source rows, children before parents.
 * A failed verification deletes what was copied to the target and lifts the fence: nothing moved.
 */
export interface TableReport {
  table: string;
  rows: number;
  checksum: string;
}

export interface MoveReport {
  tenantId: string;
  from: number;
  to: number;
  tables: TableReport[];
  rows: number;
  /** false when a source table changed after verification: its rows are kept for a manual reconcile */
  sourceDeleted: boolean;
  sourceChanged: string[];
}

const PAGE = 500;
type Row = Record<string, unknown>;

interface TableInfo {
  name: string;
  columns: string[];
  primaryKey: string[];
  parents: string[];
  /** columns referencing users (control rows): the target shard gets stubs of those users first */
  userColumns: string[];
}

/** contact_counts is written by triggers on contacts (migrations/tenant/0001_house_agency_contact_counts.sql) */
const TRIGGER_MAINTAINED = new Set(["contact_counts"]);

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Every table with a tenant_id column that is not a control-plane table, parents first. */
export async function tenantTables(d1: D1Database): Promise<TableInfo[]> {
  const names = await d1.prepare("select name from sqlite_master where type = 'table' and name not like '\\_%' escape '\\' and name not like 'sqlite%' and name not like 'd1\\_migrations%' escape '\\'").all<{ name: string }>();
  const infos: TableInfo[] = [];
  for (const { name } of names.results) {
    if (CONTROL_TABLES.has(name)) continue;
    const cols = await d1.prepare(`pragma table_info(${q(name)})`).all<{ name: string; pk: number }>();
    if (!cols.results.some((c) => c.name === "tenant_id")) continue;
    const fks = await d1.prepare(`pragma foreign_key_list(${q(name)})`).all<{ table: string; from: string }>();
    const pk = cols.results.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
    infos.push({ name, columns: cols.results.map((c) => c.name), primaryKey: pk.length ? pk : ["rowid"], parents: fks.results.map((f) => f.table).filter((t) => t !== name), userColumns: fks.results.filter((f) => f.table === "users").map((f) => f.from) });
  }
  // topological order: a table after every tenant table it references
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
  return [...ordered.filter((t) => !TRIGGER_MAINTAINED.has(t.name)), ...ordered.filter((t) => TRIGGER_MAINTAINED.has(t.name))];
}

async function* pages(d1: D1Database, t: TableInfo, tenantId: string): AsyncGenerator<Row[]> {
  const order = t.primaryKey.map(q).join(", ");
  for (let offset = 0; ; offset += PAGE) {
    const res = await d1.prepare(`select ${t.columns.map(q).join(", ")} from ${q(t.name)} where tenant_id = ? order by ${order} limit ? offset ?`).bind(tenantId, PAGE, offset).all<Row>();
    if (!res.results.length) return;
    yield res.results;
    if (res.results.length < PAGE) return;
  }
}

/** Row count and a digest over the rows in primary-key order (a hash of page hashes: no page is held twice). */
export async function tableChecksum(d1: D1Database, t: TableInfo, tenantId: string): Promise<{ rows: number; checksum: string }> {
  let rows = 0;
  const parts: string[] = [];
  for await (const page of pages(d1, t, tenantId)) {
    rows += page.length;
    parts.push(await sha256Hex(JSON.stringify(page.map((r) => t.columns.map((c) => r[c])))));
  }
  return { rows, checksum: await sha256Hex(parts.join(":")) };
}

/** One page as one statement: the rows travel as a single JSON parameter (D1's 100-parameter cap). */
function insertPage(d1: D1Database, t: TableInfo, page: Row[]): D1PreparedStatement {
  const cols = t.columns.map(q).join(", ");
  const values = t.columns.map((c) => `json_extract(value, '$.${c.replace(/'/g, "''")}')`).join(", ");
  const verb = TRIGGER_MAINTAINED.has(t.name) ? "insert or replace" : "insert";
  return d1.prepare(`${verb} into ${q(t.name)} (${cols}) select ${values} from json_each(?)`).bind(JSON.stringify(page));
}

async function deleteRows(d1: D1Database, tables: TableInfo[], tenantId: string) {
  for (const t of [...tables].reverse()) await d1.prepare(`delete from ${q(t.name)} where tenant_id = ?`).bind(tenantId).run();
}

export async function moveTenant(env: Env, tenantId: string, to: number, o: { settleMs?: number } = {}): Promise<MoveReport> {
  if (!shardNumbers(env).includes(to)) throw new Error(`no shard ${to}`);
  const control = controlDb(env);
  const tenant = await control.select().from(tenants).where(eq(tenants.id, tenantId)).get();
  if (!tenant) throw new Error("unknown tenant");
  if (tenant.shard === to) throw new Error(`tenant already on shard ${to}`);
  if (tenant.movingSince) throw new Error("tenant already moving");
  const source = shardD1(env, tenant.shard);
  const target = shardD1(env, to);

  await control.update(tenants).set({ movingSince: nowIso() }).where(eq(tenants.id, tenantId));
  forgetTenantShard(tenantId);
  if (o.settleMs) await new Promise((r) => setTimeout(r, o.settleMs));
  const tables = await tenantTables(source);
  const report: TableReport[] = [];
  try {
    await mirrorTenant(env, { ...tenant, shard: to });
    for (const t of tables) {
      for (const col of t.userColumns) {
        const ids = await source.prepare(`select distinct ${q(col)} as id from ${q(t.name)} where tenant_id = ? and ${q(col)} is not null`).bind(tenantId).all<{ id: string }>();
        for (const { id } of ids.results) await mirrorUser(env, shardDb(env, to), id);
      }
    }
    for (const t of tables) for await (const page of pages(source, t, tenantId)) await insertPage(target, t, page).run();
    for (const t of tables) {
      const [a, b] = await Promise.all([tableChecksum(source, t, tenantId), tableChecksum(target, t, tenantId)]);
      if (a.rows !== b.rows || a.checksum !== b.checksum) throw new Error(`verification failed for ${t.name}: ${a.rows} rows -> ${b.rows}`);
      report.push({ table: t.name, ...a });
    }
    await control.update(tenants).set({ shard: to, movingSince: null, updatedAt: nowIso() }).where(eq(tenants.id, tenantId));
    forgetTenantShard(tenantId);
  } catch (e) {
    await deleteRows(target, tables, tenantId);
    await control.update(tenants).set({ movingSince: null }).where(eq(tenants.id, tenantId));
    forgetTenantShard(tenantId);
    throw e;
  }
  // isolates that cached the old shard during the fence could only read it; once they have expired,
  // the source goes, unless a late write reached it (then it stays, reported, for a manual reconcile)
  if (o.settleMs) await new Promise((r) => setTimeout(r, o.settleMs));
  const sourceChanged: string[] = [];
  for (const t of report) {
    const now = await tableChecksum(source, tables.find((x) => x.name === t.table)!, tenantId);
    if (now.rows !== t.rows || now.checksum !== t.checksum) sourceChanged.push(t.table);
  }
  if (!sourceChanged.length) await deleteRows(source, tables, tenantId);
  // placement reads the new sizes at once; a failed measurement only waits for the daily sweep
  await recordShardSizes(env).catch((err) => console.warn(JSON.stringify({ level: "warn", message: "shard sizes not recorded after move", error: String(err) })));
  return { tenantId, from: tenant.shard, to, tables: report, rows: report.reduce((n, t) => n + t.rows, 0), sourceDeleted: !sourceChanged.length, sourceChanged };
}
