import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { roleAssignments, tenants, users } from "../../db/schema";
import type { TenantRef, UserPrincipal } from "./access";

/** Loads an active user and all their role grants in one round trip; null if absent or deactivated. */
export async function loadUserPrincipal(db: Db, userId: string): Promise<UserPrincipal | null> {
  const [userRows, grants] = await db.batch([
    db.select().from(users).where(eq(users.id, userId)).limit(1),
    db
      .select({ role: roleAssignments.role, scopeType: roleAssignments.scopeType, scopeId: roleAssignments.scopeId })
      .from(roleAssignments)
      .where(eq(roleAssignments.userId, userId)),
  ]);
  const user = userRows[0];
  if (!user || !user.isActive) return null;
  return { kind: "user", userId: user.id, email: user.email, name: user.name, homeTenantId: user.tenantId, roles: grants };
}

export async function findTenantRef(db: Db, tenantId: string): Promise<TenantRef | null> {
  const row = await db
    .select({ id: tenants.id, agencyId: tenants.agencyId, isActive: tenants.isActive })
    .from(tenants)
    .where(eq(tenants.id, tenantId))
    .get();
  return row ?? null;
}
