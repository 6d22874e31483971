import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";
import type { TenantRole } from "../db/schema";
import { BOOKMARK_HEADER, inSession, isWrite, shardSessionDb, validBookmark } from "../db/sessions";
import { rememberTenantShard, shardD1, tenantShard } from "../db/shards";
import { assertNotMoving } from "../db/tenant-fence";
import { ApiError, forbidden } from "../lib/errors";
import { addLogContext } from "../lib/log";
import {
  administeredAgencies,
  admitTenant,
  isPlatformAdmin,
  type Principal,
  requireTenantRole,
} from "../modules/identity/access";
import { scopesForRequest } from "../modules/identity/scopes";
import { findTenantRef } from "../modules/identity/service";
import { requestedTenantId } from "./auth";

/** Resolves x-tenant-id against the verified principal. Runs after authenticate. */
export const tenantContext = createMiddleware<AppEnv>(async (c, next) => {
  const tenantId = requestedTenantId(c);
  if (!tenantId) throw new ApiError("TENANT_REQUIRED", "The x-tenant-id header is required");
  await enterTenant(c, tenantId, next);
});

/**
 * The tenant fence of every door that acts in a tenant (REST's x-tenant-id, the console's /app/t/{tenantId}):
 * the tenant resolved against the verified principal (an unknown and a foreign tenant are the same 403),
 * an API key's scope, the tenant's shard through a D1 session, and the move fence on writes.
 */
export async function enterTenant(c: Context<AppEnv>, tenantId: string, next: () => Promise<void>): Promise<void> {
  const prefetched = c.get("prefetchedTenant");
  const tenant = prefetched === undefined ? await findTenantRef(c.var.control, tenantId) : prefetched;
  // the one access check of every door (identity/access.ts): an unknown and a foreign tenant look the same
  const access = admitTenant(c.var.principal, tenant);
  if (c.var.principal.kind === "api_key")
    assertScopes(c.var.principal.scopes, scopesForRequest(c.req.method, c.req.path));
  c.set("access", access);
  // from here on the request has the tenant's shard (c.var.db), read through a D1 session (docs/scaling.md)
  if (tenant!.shard !== undefined)
    rememberTenantShard(tenant!.id, { shard: tenant!.shard, movingSince: tenant!.movingSince ?? null });
  const shard = tenant!.shard ?? (await tenantShard(c.env, tenant!.id)) ?? 0;
  addLogContext({ tenantId: tenant!.id, shard });
  const d1 = shardD1(c.env, shard);
  c.set("db", shardSessionDb(d1));
  const write = isWrite(c.req.method);
  if (write) assertNotMoving(tenant!);
  const bookmark = await inSession(d1, { bookmark: validBookmark(c.req.header(BOOKMARK_HEADER)), write }, next);
  if (bookmark) c.res.headers.set(BOOKMARK_HEADER, bookmark);
}

/**
 * An API key's (or grant's) scopes against the scopes that admit a route or operation: none admits it
 * (keys cannot call it), or one of them must be granted (tenantContext, and enterTenant for every door
 * that acts in a tenant).
 */
export function assertScopes(granted: readonly string[], admits: readonly string[]) {
  if (admits.length === 0) throw forbidden("API keys cannot call this route");
  if (!admits.some((s) => granted.includes(s)))
    throw new ApiError("FORBIDDEN", `Requires scope ${admits.join(" or ")}`, { requiredScopes: admits });
}

/**
 * Minimum tenant role for a route; reads are open to viewer, writes start at tenant_user. The check is
 * the one every door passes (identity/access.ts `requireTenantRole`; a paused tenant's users and keys are viewers).
 */

export const requireRole = (min: TenantRole) =>
  createMiddleware<AppEnv>(async (c, next) => {
    requireTenantRole(c.var.access, min);
    await next();
  });

export const canWrite = requireRole("tenant_user");
export const canManage = requireRole("manager");
export const canAdminister = requireRole("tenant_admin");

/** /admin/*: a platform admin (the middleware and the console's invoke). */
export function assertPlatformAdmin(p: Principal) {
  if (!isPlatformAdmin(p)) throw forbidden("Platform admin only");
}

/** /agency/*: a platform admin or the admin of an agency (the middleware and the console's invoke). */
export function assertAgencyAdmin(p: Principal) {
  if (!isPlatformAdmin(p) && administeredAgencies(p).length === 0) throw forbidden("Agency admin only");
}

export const requirePlatformAdmin = createMiddleware<AppEnv>(async (c, next) => {
  assertPlatformAdmin(c.var.principal);
  await next();
});

export const requireAgencyScope = createMiddleware<AppEnv>(async (c, next) => {
  assertAgencyAdmin(c.var.principal);
  await next();
});
