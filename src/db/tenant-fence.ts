import type { Env } from "../env";
import { ApiError } from "../lib/errors";
import { MOVE_RETRY_AFTER_SECONDS, tenantPlacement } from "./shards";

/**
 * The move fence (docs/scaling.md, "Moving a tenant", step 1), one mechanism for every writer of a
 * tenant's rows: `/v1` (tenantContext), `/agency/tenants/{id}/...`, public token routes, MCP write
 * tools and the queue consumers. While `tenants.moving_since` is set, nothing may write the tenant's
 * rows on its source shard: the copy and its verification would miss them.
 *
 * The answer is read from the directory cache (src/db/shards.ts, 10 s, forgotten by the isolate
 * that fences or flips); the move waits that long after fencing before it copies a row.
 */
export const tenantMovingError = () =>
  new ApiError(
    "TENANT_MOVING",
    "The tenant is being moved; retry shortly",
    { retryAfterSeconds: MOVE_RETRY_AFTER_SECONDS },
    { "Retry-After": String(MOVE_RETRY_AFTER_SECONDS) },
  );

export const isTenantMoving = (e: unknown): e is ApiError => e instanceof ApiError && e.code === "TENANT_MOVING";

/** False while the tenant is being moved. An unknown tenant is writable (its writers find nothing and decide, as before). */
export async function tenantWritable(env: Env, tenantId: string): Promise<boolean> {
  return !(await tenantPlacement(env, tenantId))?.movingSince;
}

/** Throws 503 TENANT_MOVING (Retry-After) while the tenant is being moved. */
export async function assertTenantWritable(env: Env, tenantId: string): Promise<void> {
  if (!(await tenantWritable(env, tenantId))) throw tenantMovingError();
}

/** The same, for a caller that holds the fresh directory row already (no cache read). */
export function assertNotMoving(tenant: { movingSince?: string | null }): void {
  if (tenant.movingSince) throw tenantMovingError();
}

/**
 * How long a queue message of a fenced tenant waits before its next delivery (message.retry). A
 * move is fenced through fencing, copying and verifying: about 41 s for 100,000 rows (the bench),
 * so one wait outlasts a typical move; every queue allows at least 5 retries (wrangler.toml), so a
 * message waits out a fence of 5 minutes before it is dead-lettered (and can then be replayed).
 */
export const FENCED_RETRY_SECONDS = 60;
