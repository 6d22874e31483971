import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { tenantMoves, tenants, type TenantMoveCursor, type TenantMoveSide, type TenantMoveState, type TenantMoveTable } from "../../db/schema";
import { controlDb, forgetTenantShard, mirrorTenant, mirrorUser, shardD1, shardDb } from "../../db/shards";
import { addChunk, copyRows, deleteChunk, keyOf, readChunk, referencedUsers, tenantTables, type Row, type TableInfo } from "../../db/tenant-move";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { backoffSeconds } from "../../lib/backoff";
import { SYSTEM_META } from "../../lib/context";
import { nowIso } from "../../lib/time";
import { forgetTenantRef } from "../identity/principal-cache";
import { assertMoveTransition, canRollBack, isFinished } from "./tenant-move.states";

/**
 * The tenant move job (docs/scaling.md, "Moving a tenant"). Each JOBS message advances one move by
 * one bounded slice: at most `sliceChunks` chunks of `chunkRows` rows, from the cursor saved in the
 * tenant_moves row. The slice commits by compare-and-set on `step` and then sends the next
 * message (delayed by the directory TTL after fencing and after flipping). A message for an older
 * step is a redelivery: its slice already committed, so it is dropped; a duplicate running at the
 * same time loses the compare-and-set, and the rows it wrote were `insert or ignore`.
 */
export interface TenantMoveMessage {
  kind: "tenant_move";
  moveId: string;
  step: number;
}

export const isTenantMoveMessage = (b: unknown): b is TenantMoveMessage =>
  Boolean(b) && (b as TenantMoveMessage).kind === "tenant_move" && typeof (b as TenantMoveMessage).moveId === "string" && typeof (b as TenantMoveMessage).step === "number";

/** Deliveries of one slice before the move gives up and rolls back (the queue's max_retries is 5: the rollback starts before the message is dead-lettered). */
export const MOVE_ATTEMPTS = 5;

type Move = typeof tenantMoves.$inferSelect;

/** What a slice changes in the move row, and what happens once it has committed. */
interface Slice {
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

export const sendMoveStep = (env: Env, moveId: string, step: number, delaySeconds = 0) =>
  env.JOBS.send({ kind: "tenant_move", moveId, step } satisfies TenantMoveMessage, delaySeconds > 0 ? { delaySeconds } : undefined);

async function infoOf(env: Env, move: Move, i: number): Promise<TableInfo> {
  const all = await tenantTables(shardD1(env, move.fromShard));
  const name = move.tables[i]!.table;
  const t = all.find((x) => x.name === name);
  if (!t) throw new Error(`table ${name} is gone`);
  return t;
}

async function advanceSide(t: TableInfo, side: TenantMoveSide, rows: Row[]): Promise<TenantMoveSide> {
  if (!rows.length) return side;
  return { after: keyOf(t, rows[rows.length - 1]!), rows: side.rows + rows.length, digest: await addChunk(t, side.digest, rows) };
}

/** Fencing (after the TTL): mirror the tenant and the users its rows reference onto the target, list the tables. */
async function fence(env: Env, move: Move): Promise<Slice> {
  const tenant = await controlDb(env).select().from(tenants).where(eq(tenants.id, move.tenantId)).get();
  if (!tenant) throw new Error("unknown tenant");
  await mirrorTenant(env, { ...tenant, shard: move.toShard, movingSince: null });
  const source = shardD1(env, move.fromShard);
  const tables = await tenantTables(source);
  const target = shardDb(env, move.toShard);
  for (const t of tables) for (const id of await referencedUsers(source, t, move.tenantId)) await mirrorUser(env, target, id);
  return { state: "copying", tableIndex: 0, cursor: {}, tables: tables.map((t) => ({ table: t.name, copied: 0, rows: null, checksum: null })) };
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
  if (i < tables.length) return { state: "copying", tableIndex: i, cursor: { source: { ...startSide(), after } }, tables };
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
    const [a, b] = await Promise.all([readChunk(source, t, move.tenantId, s.after, move.chunkRows), readChunk(target, t, move.tenantId, g.after, move.chunkRows)]);
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
  return { state: "settling", tableIndex: 0, cursor: {}, tables, directory: "flip", notBefore: secondsFromNow(move.settleSeconds), delaySeconds: move.settleSeconds };
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
  if (i < move.tables.length) return { state: "rechecking", tableIndex: i, cursor: { source: s }, tables: move.tables, sourceChanged: changed };
  if (changed.length) return { state: "succeeded", tableIndex: 0, cursor: {}, tables: move.tables, sourceChanged: changed, sourceDeleted: false };
  return { state: "deleting", tableIndex: move.tables.length - 1, cursor: {}, tables: move.tables, sourceChanged: changed };
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

function runSlice(env: Env, move: Move): Promise<Slice> {
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

/**
 * Commits a slice if the move is still at the step it started from: one control-database batch
 * with the move row and, when the slice flips or unfences, the directory row (guarded by the move
 * row having just taken that step, so a losing duplicate cannot touch it). True when this slice won.
 */
async function commitSlice(env: Env, move: Move, slice: Slice): Promise<boolean> {
  assertMoveTransition(move.state, slice.state);
  const control = controlDb(env);
  const now = nowIso();
  const next = move.step + 1;
  const finished = isFinished(slice.state);
  const update = control
    .update(tenantMoves)
    .set({
      state: slice.state, step: next, tableIndex: slice.tableIndex, cursor: slice.cursor, tables: slice.tables,
      ...(slice.notBefore !== undefined ? { notBefore: slice.notBefore } : {}),
      ...(slice.error !== undefined ? { error: slice.error } : {}),
      ...(slice.sourceDeleted !== undefined ? { sourceDeleted: slice.sourceDeleted } : {}),
      ...(slice.sourceChanged !== undefined ? { sourceChanged: slice.sourceChanged } : {}),
      ...(finished ? { finishedAt: now } : {}),
      updatedAt: now,
    })
    .where(and(eq(tenantMoves.id, move.id), eq(tenantMoves.step, move.step)))
    .returning({ id: tenantMoves.id });
  const tookStep = sql`exists (select 1 from ${tenantMoves} where ${tenantMoves.id} = ${move.id} and ${tenantMoves.step} = ${next} and ${tenantMoves.state} = ${slice.state})`;
  const directory: BatchItem<"sqlite">[] =
    slice.directory === "flip"
      ? [control.update(tenants).set({ shard: move.toShard, movingSince: null, updatedAt: now }).where(and(eq(tenants.id, move.tenantId), eq(tenants.shard, move.fromShard), tookStep))]
      : slice.directory === "unfence"
        ? [control.update(tenants).set({ movingSince: null }).where(and(eq(tenants.id, move.tenantId), eq(tenants.shard, move.fromShard), tookStep))]
        : [];
  const [won] = await control.batch([update, ...directory]);
  return won.length === 1;
}

/** After a slice won: caches, the final audit row (on the shard the tenant now lives on), the next message. */
async function afterSlice(env: Env, move: Move, slice: Slice) {
  if (slice.directory) {
    forgetTenantShard(move.tenantId);
    forgetTenantRef(move.tenantId);
  }
  if (slice.directory === "flip") await mirrorTenant(env, { ...(await controlDb(env).select().from(tenants).where(eq(tenants.id, move.tenantId)).get())! });
  if (isFinished(slice.state)) {
    await writeOutcomeAudit(env, move, slice).catch((err) =>
      console.warn(JSON.stringify({ level: "warn", message: "tenant move audit row not written", moveId: move.id, error: String(err) })),
    );
    return;
  }
  await sendMoveStep(env, move.id, move.step + 1, slice.delaySeconds ?? 0);
}

async function writeOutcomeAudit(env: Env, move: Move, slice: Slice) {
  const moved = slice.state === "succeeded";
  const db = shardDb(env, moved ? move.toShard : move.fromShard);
  const rows = slice.tables.reduce((n, t) => n + (t.rows ?? 0), 0);
  await auditStatement(
    { db, actor: { type: "system", name: "tenant-move" }, meta: SYSTEM_META },
    {
      tenantId: move.tenantId, action: moved ? "tenant.moved" : "tenant.move_failed", resourceType: "tenant", resourceId: move.tenantId,
      previousState: { shard: move.fromShard },
      nextState: moved ? { shard: move.toShard, rows, sourceDeleted: slice.sourceDeleted ?? false } : { shard: move.fromShard, error: move.error ?? slice.error ?? null },
      metadata: { moveId: move.id, requestedBy: move.createdByUserId },
    },
  );
}

/** Records a failed attempt; on the last one before the flip, the move turns to rolling back (its own slices). */
async function onSliceError(env: Env, move: Move, err: unknown, attempts: number): Promise<"retry" | "rolled"> {
  const error = String(err instanceof Error ? err.message : err).slice(0, 500);
  console.error(JSON.stringify({ level: "error", message: "tenant move slice failed", moveId: move.id, state: move.state, attempts, error }));
  const control = controlDb(env);
  if (attempts >= MOVE_ATTEMPTS && canRollBack(move.state)) {
    const slice: Slice = { state: "rolling_back", tableIndex: move.tables.length - 1, cursor: {}, tables: move.tables, error };
    if (await commitSlice(env, move, slice)) await sendMoveStep(env, move.id, move.step + 1);
    return "rolled";
  }
  await control.update(tenantMoves).set({ error, updatedAt: nowIso() }).where(and(eq(tenantMoves.id, move.id), eq(tenantMoves.step, move.step)));
  return "retry";
}

export async function handleMoveMessage(env: Env, message: Message<unknown>): Promise<void> {
  const body = message.body as TenantMoveMessage;
  const move = await controlDb(env).select().from(tenantMoves).where(eq(tenantMoves.id, body.moveId)).get();
  if (!move || isFinished(move.state) || body.step > move.step) return message.ack();
  if (body.step < move.step) {
    // a retry of a message whose slice committed and whose follow-up may not have gone out: send it
    // again (a duplicate of it is harmless); any other old message is a duplicate delivery
    if (body.step === move.step - 1 && message.attempts > 1) await sendMoveStep(env, move.id, move.step, Math.max(0, secondsUntil(move.notBefore)));
    return message.ack();
  }
  const wait = secondsUntil(move.notBefore);
  if (wait > 0 && move.state !== "rolling_back") return message.retry({ delaySeconds: wait });
  let slice: Slice;
  try {
    slice = await runSlice(env, move);
  } catch (err) {
    if ((await onSliceError(env, move, err, message.attempts)) === "retry") return message.retry({ delaySeconds: backoffSeconds(message.attempts, 2, 300) });
    return message.ack();
  }
  if (await commitSlice(env, move, slice)) await afterSlice(env, move, slice);
  message.ack();
}

const secondsUntil = (iso: string | null) => (iso ? Math.ceil((Date.parse(iso) - Date.now()) / 1000) : 0);

/** The JOBS queue's tenant-move messages, one after another (control-plane work: no tenant shard to split by). */
export async function tenantMovesConsumer(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    try {
      await handleMoveMessage(env, message);
    } catch (err) {
      console.error(JSON.stringify({ level: "error", message: "tenant move message failed", id: message.id, error: String(err) }));
      message.retry({ delaySeconds: backoffSeconds(message.attempts, 2, 300) });
    }
  }
}
