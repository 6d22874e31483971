import { eq } from "drizzle-orm";
import {
  type TenantMoveCursor,
  type TenantMoveSide,
  type TenantMoveState,
  type TenantMoveTable,
  type tenantMoves,
  tenants,
} from "../../db/schema";
import { controlDb, mirrorTenant, mirrorUser, shardD1, shardDb } from "../../db/shards";
import {
  addChunk,
  copyRows,
  deleteChunk,
  keyOf,
  type Row,
  readChunk,
  referencedUsers,
  type TableInfo,
  tablesWithRows,
  tenantTables,
} from "../../db/tenant-move";
import type { Env } from "../../env";

/**
 * The phases of a tenant move, one bounded slice each (docs/scaling.md, "Moving a tenant"): every
 * function reads the move row as it was committed and returns what the row becomes; nothing here
 * commits the move row (src/modules/admin/background.ts does, by compare-and-set).
 */
export type Move = typeof tenantMoves.$inferSelect;

/** What a slice changes in the move row, and what happens once it has committed. */
export interface Slice {
  state: TenantMoveState;
  tableIndex: number;
  cursor: TenantMoveCursor;
  tables: TenantMoveTable[];
  notBefore?: string | null;
  error?: string | null;
  sourceDeleted?: boolean;
  sourceChanged?: string[];
  /** the directory change committed in the same batch as the move row (flip, or lifting the fence) */
  directory?: "flip" | "unfence";
  /** delay of the next message */
  delaySeconds?: number;
}

/**
 * A slice also stops after this long, whatever its chunk budget: a message's work stays well inside
 * a queue invocation's limits (CPU, D1 queries) even with a batch of several messages.
 */
export const SLICE_MS = 10_000;
const inBudget = (started: number) => Date.now() - started < SLICE_MS;

const startSide = (): TenantMoveSide => ({ after: null, rows: 0, digest: "" });

async function infoOf(env: Env, move: Move, i: number): Promise<TableInfo> {
  const all = await tenantTables(shardD1(env, move.fromShard));
  const name = move.tables[i]!.table;
  const t = all.find((x) => x.name === name);
  if (!t) throw new Error(`table ${name} is gone`);
  return t;
}

async function advanceSide(t: TableInfo, side: TenantMoveSide, rows: Row[]): Promise<TenantMoveSide> {
  if (!rows.length) return side;
  return {
    after: keyOf(t, rows[rows.length - 1]!),
    rows: side.rows + rows.length,
    digest: await addChunk(t, side.digest, rows),
  };
}

/**
 * Fencing (after the TTL): the target must hold none of the tenant's rows (an earlier move that kept
 * its source leaves them for a manual reconcile; a rollback would delete them), then the tenant and
 * the users its rows reference are mirrored onto it and the tables listed.
 */
async function fence(env: Env, move: Move): Promise<Slice> {
  const tenant = await controlDb(env).select().from(tenants).where(eq(tenants.id, move.tenantId)).get();
  if (!tenant) throw new Error("unknown tenant");
  const source = shardD1(env, move.fromShard);
  const tables = await tenantTables(source);
  const there = await tablesWithRows(shardD1(env, move.toShard), tables, move.tenantId);
  if (there.length) {
    const error = `shard ${move.toShard} already holds rows of this tenant (${there.join(", ")}), left by an earlier move: reconcile them first; nothing was copied`;
    return { state: "rolling_back", tableIndex: -1, cursor: {}, tables: [], error };
  }
  // the directory row as it is (a changed copy written onto shard 0, the control database, would flip or unfence it)
  await mirrorTenant(env, tenant, move.toShard);
  const target = shardDb(env, move.toShard);
  for (const t of tables)
    for (const id of await referencedUsers(source, t, move.tenantId)) await mirrorUser(env, target, id);
  return {
    state: "copying",
    tableIndex: 0,
    cursor: {},
    tables: tables.map((t) => ({ table: t.name, copied: 0, rows: null, checksum: null })),
  };
}

async function copy(env: Env, move: Move): Promise<Slice> {
  const started = Date.now();
  const source = shardD1(env, move.fromShard);
  const target = shardD1(env, move.toShard);
  const tables = move.tables.map((t) => ({ ...t }));
  let i = move.tableIndex;
  let after = move.cursor.source?.after ?? null;
  for (let chunks = 0; i < tables.length && chunks < move.sliceChunks && inBudget(started); ) {
    const t = await infoOf(env, move, i);
    const rows = await readChunk(source, t, move.tenantId, after, move.chunkRows);
    if (rows.length) {
      await copyRows(target, t, rows);
      tables[i]!.copied += rows.length;
      chunks++;
    }
    if (rows.length < move.chunkRows) {
      i++;
      after = null;
    } else after = keyOf(t, rows[rows.length - 1]!);
  }
  if (i < tables.length)
    return { state: "copying", tableIndex: i, cursor: { source: { ...startSide(), after } }, tables };
  return { state: "verifying", tableIndex: 0, cursor: {}, tables };
}

async function verify(env: Env, move: Move): Promise<Slice> {
  const started = Date.now();
  const source = shardD1(env, move.fromShard);
  const target = shardD1(env, move.toShard);
  const tables = move.tables.map((t) => ({ ...t }));
  let i = move.tableIndex;
  let s = move.cursor.source ?? startSide();
  let g = move.cursor.target ?? startSide();
  for (let chunks = 0; i < tables.length && chunks < move.sliceChunks && inBudget(started); ) {
    const t = await infoOf(env, move, i);
    const [a, b] = await Promise.all([
      readChunk(source, t, move.tenantId, s.after, move.chunkRows),
      readChunk(target, t, move.tenantId, g.after, move.chunkRows),
    ]);
    if (a.length || b.length) chunks++;
    [s, g] = await Promise.all([advanceSide(t, s, a), advanceSide(t, g, b)]);
    if (a.length === move.chunkRows || b.length === move.chunkRows) continue;
    if (s.rows !== g.rows || s.digest !== g.digest) {
      const error = `verification failed for ${t.name}: ${s.rows} rows on shard ${move.fromShard}, ${g.rows} on shard ${move.toShard}${s.rows === g.rows ? " (checksums differ)" : ""}`;
      return { state: "rolling_back", tableIndex: tables.length - 1, cursor: {}, tables, error };
    }
    tables[i] = { ...tables[i]!, rows: s.rows, checksum: s.digest };
    i++;
    s = startSide();
    g = startSide();
  }
  if (i < tables.length) return { state: "verifying", tableIndex: i, cursor: { source: s, target: g }, tables };
  // every table matches: flip the directory; isolates that cached the old shard expire within the TTL
  return {
    state: "settling",
    tableIndex: 0,
    cursor: {},
    tables,
    directory: "flip",
    notBefore: secondsFromNow(move.settleSeconds),
    delaySeconds: move.settleSeconds,
  };
}

/** After the TTL: the source, read again; a table that changed since it was verified (a late background write) keeps its source rows. */
async function recheck(env: Env, move: Move): Promise<Slice> {
  const started = Date.now();
  const source = shardD1(env, move.fromShard);
  const changed = [...move.sourceChanged];
  let i = move.state === "settling" ? 0 : move.tableIndex;
  let s = move.state === "settling" ? startSide() : (move.cursor.source ?? startSide());
  for (let chunks = 0; i < move.tables.length && chunks < move.sliceChunks && inBudget(started); ) {
    const t = await infoOf(env, move, i);
    const a = await readChunk(source, t, move.tenantId, s.after, move.chunkRows);
    if (a.length) chunks++;
    s = await advanceSide(t, s, a);
    if (a.length === move.chunkRows) continue;
    const verified = move.tables[i]!;
    if (s.rows !== verified.rows || s.digest !== verified.checksum) changed.push(t.name);
    i++;
    s = startSide();
  }
  if (i < move.tables.length)
    return { state: "rechecking", tableIndex: i, cursor: { source: s }, tables: move.tables, sourceChanged: changed };
  if (changed.length)
    return {
      state: "succeeded",
      tableIndex: 0,
      cursor: {},
      tables: move.tables,
      sourceChanged: changed,
      sourceDeleted: false,
    };
  return {
    state: "deleting",
    tableIndex: move.tables.length - 1,
    cursor: {},
    tables: move.tables,
    sourceChanged: changed,
  };
}

/** Deletes the tenant's rows on one side, children before parents (the index walks the tables backwards). */
async function deleteSide(env: Env, move: Move, shard: number): Promise<number> {
  const started = Date.now();
  const d1 = shardD1(env, shard);
  let i = move.tableIndex;
  for (let chunks = 0; i >= 0 && chunks < move.sliceChunks && inBudget(started); ) {
    const gone = await deleteChunk(d1, await infoOf(env, move, i), move.tenantId, move.chunkRows);
    if (gone) chunks++;
    if (gone < move.chunkRows) i--;
  }
  return i;
}

async function deleteSource(env: Env, move: Move): Promise<Slice> {
  const i = await deleteSide(env, move, move.fromShard);
  if (i >= 0) return { state: "deleting", tableIndex: i, cursor: {}, tables: move.tables };
  return { state: "succeeded", tableIndex: 0, cursor: {}, tables: move.tables, sourceDeleted: true };
}

async function rollBack(env: Env, move: Move): Promise<Slice> {
  // a move that failed while fencing has no table list yet: nothing was copied
  const i = move.tables.length ? await deleteSide(env, move, move.toShard) : -1;
  if (i >= 0) return { state: "rolling_back", tableIndex: i, cursor: {}, tables: move.tables };
  return { state: "failed", tableIndex: 0, cursor: {}, tables: move.tables, directory: "unfence" };
}

const secondsFromNow = (s: number) => new Date(Date.now() + s * 1000).toISOString();

export function runSlice(env: Env, move: Move): Promise<Slice> {
  switch (move.state) {
    case "fencing":
      return fence(env, move);
    case "copying":
      return copy(env, move);
    case "verifying":
      return verify(env, move);
    case "settling":
    case "rechecking":
      return recheck(env, move);
    case "deleting":
      return deleteSource(env, move);
    case "rolling_back":
      return rollBack(env, move);
    case "succeeded":
    case "failed":
      throw new Error(`move ${move.id} is ${move.state}`);
  }
}
