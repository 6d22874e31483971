import { eq } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { users } from "../../db/schema";
import { unauthenticated } from "../../lib/errors";
import { resolveTenantAccess, type UserPrincipal } from "../identity/access";
import { findTenantRef } from "../identity/service";
import { toUser } from "../users/schemas";

/** GET /me: the user's profile, role assignments and, with `tenantId`, how they reach that tenant. */
export async function getMe(db: ControlDb, p: UserPrincipal, tenantId: string | undefined) {
  const [user, tenant] = await Promise.all([
    db.select().from(users).where(eq(users.id, p.userId)).get(),
    tenantId ? findTenantRef(db, tenantId) : null,
  ]);
  if (!user) throw unauthenticated();
  const access = tenant ? resolveTenantAccess(p, tenant) : null;
  return {
    ...toUser(user),
    roles: p.roles.map((r) => ({ role: r.role, scope: r.scopeType, scopeId: r.scopeId || null })),
    tenantAccess: access ? { tenantId: access.tenantId, via: access.via, role: access.role } : null,
  };
}
