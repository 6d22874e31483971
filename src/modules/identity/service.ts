import { eq } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { roleAssignments, tenants, users } from "../../db/schema";
import type { TenantRef, UserPrincipal } from "./access";
import { cachedPrincipal, cachedTenantRef, rememberPrincipal, rememberTenantRef } from "./principal-cache";

const tenantRefQuery = (db: ControlDb, tenantId: string) =>
  db
    .select({
      id: tenants.id,
      agencyId: tenants.agencyId,
      isActive: tenants.isActive,
      shard: tenants.shard,
      movingSince: tenants.movingSince,
    })
    .from(tenants)
    .where(eq(tenants.id, tenantId))
    .limit(1);

/** Loads an active user and all their role grants in one round trip; null if absent or deactivated. */
export async function loadUserPrincipal(db: ControlDb, userId: string): Promise<UserPrincipal | null> {
  return (await loadUserPrincipalWithTenant(db, userId)).principal;
}

/**
 * The user, their grants and (when asked) the tenant the request names: from the isolate's short
 * cache when both are there (principal-cache.ts), else in one D1 round trip that fills it. The
 * tenant middleware then needs no read of its own.
 */
export async function resolveSessionPrincipal(
  db: ControlDb,
  userId: string,
  tenantId?: string,
): Promise<{ principal: UserPrincipal | null; tenant?: TenantRef | null }> {
  const now = Date.now();
  const principal = cachedPrincipal(userId, now);
  const tenant = tenantId === undefined ? undefined : cachedTenantRef(tenantId, now);
  if (principal && tenant !== undefined) return { principal, tenant };
  if (principal && tenantId === undefined) return { principal };
  const loaded = await loadUserPrincipalWithTenant(db, userId, tenantId);
  if (loaded.principal) rememberPrincipal(loaded.principal, now);
  if (tenantId !== undefined && loaded.tenant !== undefined) rememberTenantRef(tenantId, loaded.tenant, now);
  return loaded;
}

/** The user, their grants and (when asked) the tenant the request names, in one D1 round trip. */
export async function loadUserPrincipalWithTenant(
  db: ControlDb,
  userId: string,
  tenantId?: string,
): Promise<{ principal: UserPrincipal | null; tenant?: TenantRef | null }> {
  const userQuery = db.select().from(users).where(eq(users.id, userId)).limit(1);
  const grantsQuery = db
    .select({ role: roleAssignments.role, scopeType: roleAssignments.scopeType, scopeId: roleAssignments.scopeId })
    .from(roleAssignments)
    .where(eq(roleAssignments.userId, userId));
  const [userRows, grants, tenantRows] = tenantId
    ? await db.batch([userQuery, grantsQuery, tenantRefQuery(db, tenantId)])
    : [...(await db.batch([userQuery, grantsQuery])), undefined];
  const user = userRows[0];
  const tenant = tenantRows === undefined ? undefined : (tenantRows[0] ?? null);
  if (!user?.isActive) return { principal: null, tenant };
  return {
    principal: {
      kind: "user",
      userId: user.id,
      email: user.email,
      name: user.name,
      homeTenantId: user.tenantId,
      roles: grants,
    },
    tenant,
  };
}

export async function findTenantRef(db: ControlDb, tenantId: string): Promise<TenantRef | null> {
  return (await tenantRefQuery(db, tenantId))[0] ?? null;
}
