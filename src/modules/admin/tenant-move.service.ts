import { and, desc, eq, isNull } from "drizzle-orm";
import { tenantMoves, tenants } from "../../db/schema";
import { controlDb, forgetTenantShard, shardDb, shardNumbers } from "../../db/shards";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { commitControl } from "../../lib/commit";
import type { PlatformContext } from "../../lib/context";
import { isUniqueViolation } from "../../lib/db-errors";
import { conflict, notFound, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { forgetTenantRef, PRINCIPAL_TTL_MS } from "../identity/principal-cache";
import { sendMoveStep } from "./background";
import { type TenantMoveView, toTenantMove } from "./schemas";

/** How a move is cut into slices, and how long it waits for other isolates' caches (the tenant-ref/directory TTL). */
export interface MoveSettings {
  chunkRows: number;
  sliceChunks: number;
  settleSeconds: number;
}

export const DEFAULT_MOVE_SETTINGS: MoveSettings = {
  chunkRows: 500,
  sliceChunks: 40,
  settleSeconds: Math.ceil(PRINCIPAL_TTL_MS / 1000),
};

/** The defaults, or TENANT_MOVE_CHUNK_ROWS / TENANT_MOVE_SLICE_CHUNKS / TENANT_MOVE_SETTLE_SECONDS; a move keeps the settings it started with. */
export function moveSettings(env: Env, o: Partial<MoveSettings> = {}): MoveSettings {
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  return {
    chunkRows: o.chunkRows ?? num(env.TENANT_MOVE_CHUNK_ROWS) ?? DEFAULT_MOVE_SETTINGS.chunkRows,
    sliceChunks: o.sliceChunks ?? num(env.TENANT_MOVE_SLICE_CHUNKS) ?? DEFAULT_MOVE_SETTINGS.sliceChunks,
    settleSeconds: o.settleSeconds ?? num(env.TENANT_MOVE_SETTLE_SECONDS) ?? DEFAULT_MOVE_SETTINGS.settleSeconds,
  };
}

/**
 * POST /admin/tenants/{id}/move (platform_admin): fences the tenant's writes and records the move
 * in one control-plane batch (with its audit row on the tenant's shard), then hands it to the JOBS
 * queue: the first slice runs once every isolate has seen the fence (the settle delay).
 */
export async function startTenantMove(
  ctx: PlatformContext,
  tenantId: string,
  shard: number,
  o: Partial<MoveSettings> = {},
): Promise<TenantMoveView> {
  if (!shardNumbers(ctx.env).includes(shard))
    throw validationError([
      { path: "shard", message: `No shard ${shard}; shards: ${shardNumbers(ctx.env).join(", ")}` },
    ]);
  const control = ctx.control;
  const tenant = await control
    .select({ shard: tenants.shard, movingSince: tenants.movingSince })
    .from(tenants)
    .where(eq(tenants.id, tenantId))
    .get();
  if (!tenant) throw notFound("Tenant");
  if (tenant.shard === shard) throw conflict(`The tenant is already on shard ${shard}`);
  if (tenant.movingSince) throw conflict("The tenant is already being moved");
  const settings = moveSettings(ctx.env, o);
  const now = nowIso();
  const move: typeof tenantMoves.$inferInsert = {
    id: `move_${newId()}`,
    tenantId,
    fromShard: tenant.shard,
    toShard: shard,
    state: "fencing",
    step: 0,
    notBefore: new Date(Date.parse(now) + settings.settleSeconds * 1000).toISOString(),
    ...settings,
    createdByUserId: ctx.actor.type === "user" ? ctx.actor.userId : null,
    createdAt: now,
    updatedAt: now,
  };
  const onSource = { ...ctx, db: shardDb(ctx.env, tenant.shard) };
  try {
    await commitControl(
      onSource,
      (c) => [
        c.insert(tenantMoves).values(move),
        c
          .update(tenants)
          .set({ movingSince: now })
          .where(and(eq(tenants.id, tenantId), isNull(tenants.movingSince))),
      ],
      [
        auditStatement(onSource, {
          tenantId,
          action: "tenant.move_requested",
          resourceType: "tenant",
          resourceId: tenantId,
          previousState: { shard: tenant.shard },
          nextState: { shard, moveId: move.id },
        }),
      ],
    );
  } catch (e) {
    // tenant_moves_one_active_idx: another move of this tenant started in between
    if (isUniqueViolation(e)) throw conflict("The tenant is already being moved");
    throw e;
  }
  forgetTenantRef(tenantId);
  forgetTenantShard(tenantId);
  try {
    await sendMoveStep(ctx.env, move.id, 0, settings.settleSeconds);
  } catch (e) {
    // nothing will advance the move: undo the fence rather than leave the tenant read-only
    await control.batch([
      control
        .update(tenantMoves)
        .set({ state: "failed", error: `not queued: ${String(e)}`, finishedAt: nowIso(), updatedAt: nowIso() })
        .where(eq(tenantMoves.id, move.id)),
      control.update(tenants).set({ movingSince: null }).where(eq(tenants.id, tenantId)),
    ]);
    forgetTenantRef(tenantId);
    throw e;
  }
  return getTenantMove(ctx.env, move.id);
}

export async function getTenantMove(env: Env, id: string): Promise<TenantMoveView> {
  const row = await controlDb(env).select().from(tenantMoves).where(eq(tenantMoves.id, id)).get();
  if (!row) throw notFound("Tenant move");
  return toTenantMove(row);
}

/** The tenant's moves, newest first (a tenant is moved rarely: the last 50). */
export async function listTenantMoves(env: Env, tenantId: string): Promise<{ data: TenantMoveView[] }> {
  const control = controlDb(env);
  const tenant = await control.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId)).get();
  if (!tenant) throw notFound("Tenant");
  const rows = await control
    .select()
    .from(tenantMoves)
    .where(eq(tenantMoves.tenantId, tenantId))
    .orderBy(desc(tenantMoves.createdAt), desc(tenantMoves.id))
    .limit(50);
  return { data: rows.map(toTenantMove) };
}
