import { eq } from "drizzle-orm";
import { shardDb, shardNumbers } from "../../db/shards";
import { tenants } from "../../db/schema";
import { moveTenant, type MoveReport } from "../../db/tenant-move";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { PlatformContext } from "../../lib/context";
import { conflict, notFound, validationError } from "../../lib/errors";
import { forgetTenantRef } from "../identity/principal-cache";
import { PRINCIPAL_TTL_MS } from "../identity/principal-cache";

/**
 * POST /admin/tenants/{id}/move (platform_admin): copies, verifies, flips and cleans up in this
 * request (src/db/tenant-move.ts). Before copying it waits out the other isolates' tenant-ref cache,
 * so every isolate sees the write fence.
 */
export async function moveTenantToShard(ctx: PlatformContext, tenantId: string, shard: number, o: { settleMs?: number } = {}): Promise<MoveReport> {
  if (!shardNumbers(ctx.env).includes(shard)) throw validationError([{ path: "shard", message: `No shard ${shard}; shards: ${shardNumbers(ctx.env).join(", ")}` }]);
  const row = await ctx.db.select({ shard: tenants.shard, movingSince: tenants.movingSince }).from(tenants).where(eq(tenants.id, tenantId)).get();
  if (!row) throw notFound("Tenant");
  if (row.shard === shard) throw conflict(`The tenant is already on shard ${shard}`);
  if (row.movingSince) throw conflict("The tenant is already being moved");
  forgetTenantRef(tenantId);
  const report = await moveTenant(ctx.env, tenantId, shard, { settleMs: o.settleMs ?? PRINCIPAL_TTL_MS });
  forgetTenantRef(tenantId);
  const onShard = { ...ctx, db: shardDb(ctx.env, shard) };
  await commit(onShard, [
    auditStatement(onShard, {
      tenantId, action: "tenant.moved", resourceType: "tenant", resourceId: tenantId,
      previousState: { shard: report.from }, nextState: { shard: report.to, rows: report.rows },
    }),
  ]);
  return report;
}
