import { and, eq, lt, notInArray, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Sweep } from "../../background/cron";
import { tenantMoves, tenants } from "../../db/schema";
import { recordShardSizes } from "../../db/shard-sizes";
import { controlDb, forgetTenantShard, mirrorTenant, shardDb } from "../../db/shards";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { backoffSeconds } from "../../lib/backoff";
import { SYSTEM_META } from "../../lib/context";
import { log } from "../../lib/log";
import { nowIso } from "../../lib/time";
import { forgetTenantRef } from "../identity/principal-cache";
import { type Move, runSlice, type Slice } from "./tenant-move.slices";
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
  Boolean(b) &&
  (b as TenantMoveMessage).kind === "tenant_move" &&
  typeof (b as TenantMoveMessage).moveId === "string" &&
  typeof (b as TenantMoveMessage).step === "number";

/** Deliveries of one slice before the move gives up and rolls back (the queue's max_retries is 5: the rollback starts before the message is dead-lettered). */
export const MOVE_ATTEMPTS = 5;

export const sendMoveStep = (env: Env, moveId: string, step: number, delaySeconds = 0) =>
  env.JOBS.send(
    { kind: "tenant_move", moveId, step } satisfies TenantMoveMessage,
    delaySeconds > 0 ? { delaySeconds } : undefined,
  );

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
      state: slice.state,
      step: next,
      tableIndex: slice.tableIndex,
      cursor: slice.cursor,
      tables: slice.tables,
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
      ? [
          control
            .update(tenants)
            .set({ shard: move.toShard, movingSince: null, updatedAt: now })
            .where(and(eq(tenants.id, move.tenantId), eq(tenants.shard, move.fromShard), tookStep)),
        ]
      : slice.directory === "unfence"
        ? [
            control
              .update(tenants)
              .set({ movingSince: null })
              .where(and(eq(tenants.id, move.tenantId), eq(tenants.shard, move.fromShard), tookStep)),
          ]
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
  if (slice.directory === "flip") {
    // the target's mirror now says where the tenant lives and that it is no longer fenced
    const row = await controlDb(env).select().from(tenants).where(eq(tenants.id, move.tenantId)).get();
    if (row) await mirrorTenant(env, row);
  }
  if (isFinished(slice.state)) {
    await writeOutcomeAudit(env, move, slice).catch((err) =>
      log.warn("tenant move audit row not written", { moveId: move.id, error: String(err) }),
    );
    // placement reads the new sizes at once; a failed measurement only waits for the daily sweep
    await recordShardSizes(env).catch((err) =>
      log.warn("shard sizes not recorded after move", { moveId: move.id, error: String(err) }),
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
      tenantId: move.tenantId,
      action: moved ? "tenant.moved" : "tenant.move_failed",
      resourceType: "tenant",
      resourceId: move.tenantId,
      previousState: { shard: move.fromShard },
      nextState: moved
        ? { shard: move.toShard, rows, sourceDeleted: slice.sourceDeleted ?? false }
        : { shard: move.fromShard, error: move.error ?? slice.error ?? null },
      metadata: { moveId: move.id, requestedBy: move.createdByUserId },
    },
  );
}

/** Records a failed attempt; on the last one before the flip, the move turns to rolling back (its own slices). */
async function onSliceError(env: Env, move: Move, err: unknown, attempts: number): Promise<"retry" | "rolled"> {
  const error = String(err instanceof Error ? err.message : err).slice(0, 500);
  log.error("tenant move slice failed", { moveId: move.id, state: move.state, attempts, error });
  const control = controlDb(env);
  if (attempts >= MOVE_ATTEMPTS && canRollBack(move.state)) {
    const slice: Slice = {
      state: "rolling_back",
      tableIndex: move.tables.length - 1,
      cursor: {},
      tables: move.tables,
      error,
    };
    if (await commitSlice(env, move, slice)) await sendMoveStep(env, move.id, move.step + 1);
    return "rolled";
  }
  await control
    .update(tenantMoves)
    .set({ error, updatedAt: nowIso() })
    .where(and(eq(tenantMoves.id, move.id), eq(tenantMoves.step, move.step)));
  return "retry";
}

export async function handleMoveMessage(env: Env, message: Message<unknown>): Promise<void> {
  const body = message.body as TenantMoveMessage;
  const move = await controlDb(env).select().from(tenantMoves).where(eq(tenantMoves.id, body.moveId)).get();
  if (!move || isFinished(move.state) || body.step > move.step) return message.ack();
  if (body.step < move.step) {
    // a retry of a message whose slice committed and whose follow-up may not have gone out: send it
    // again (a duplicate of it is harmless); any other old message is a duplicate delivery
    if (body.step === move.step - 1 && message.attempts > 1)
      await sendMoveStep(env, move.id, move.step, Math.max(0, secondsUntil(move.notBefore)));
    return message.ack();
  }
  const wait = secondsUntil(move.notBefore);
  if (wait > 0 && move.state !== "rolling_back") return message.retry({ delaySeconds: wait });
  let slice: Slice;
  try {
    slice = await runSlice(env, move);
  } catch (err) {
    if ((await onSliceError(env, move, err, message.attempts)) === "retry")
      return message.retry({ delaySeconds: backoffSeconds(message.attempts, 2, 300) });
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
      log.error("tenant move message failed", { id: message.id, error: String(err) });
      message.retry({ delaySeconds: backoffSeconds(message.attempts, 2, 300) });
    }
  }
}

/** A move whose row has not changed for this long while it should be running has lost its message. */
export const STALLED_AFTER_MS = 15 * 60_000;

/**
 * Every 5 minutes (control plane, once): an unfinished move that has not advanced for 15 minutes
 * (its message dead-lettered, or never sent) gets its current step sent again. Slices take
 * seconds and retries back off for at most a few minutes, so a live move is never this quiet; a
 * duplicate of a live message would be dropped by the step check anyway.
 */
export const tenantMovesWatchdogSweep: Sweep = {
  name: "tenant-moves-watchdog",
  run: async (env, now) => {
    const control = controlDb(env);
    const cutoff = new Date(now.getTime() - STALLED_AFTER_MS).toISOString();
    const stalled = await control
      .select({ id: tenantMoves.id, step: tenantMoves.step })
      .from(tenantMoves)
      .where(and(notInArray(tenantMoves.state, ["succeeded", "failed"]), lt(tenantMoves.updatedAt, cutoff)));
    for (const m of stalled) {
      log.warn("stalled tenant move resumed", { moveId: m.id, step: m.step });
      await sendMoveStep(env, m.id, m.step);
      // once per stall period, not every sweep
      await control
        .update(tenantMoves)
        .set({ updatedAt: now.toISOString() })
        .where(and(eq(tenantMoves.id, m.id), eq(tenantMoves.step, m.step)));
    }
  },
};
