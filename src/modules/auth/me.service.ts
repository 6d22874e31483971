import { eq } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { users } from "../../db/schema";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { auditDbFor, commitControl } from "../../lib/commit";
import type { RequestMeta } from "../../lib/context";
import { unauthenticated } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { resolveTenantAccess, type UserPrincipal } from "../identity/access";
import { forgetPrincipal } from "../identity/principal-cache";
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

/**
 * PATCH /me: a person changes their own display name (nothing else of the account: roles and status are
 * their admins'). Audited where the account's other changes are (its home tenant's log, else the control one).
 */
export async function updateMyProfile(
  db: ControlDb,
  env: Env,
  meta: RequestMeta,
  p: UserPrincipal,
  input: { name: string },
) {
  const before = await db.select().from(users).where(eq(users.id, p.userId)).get();
  if (!before) throw unauthenticated();
  const auditDb = await auditDbFor(env, before.tenantId);
  await commitControl(
    { db: auditDb, control: db, env, defer: () => undefined },
    (control) => [control.update(users).set({ name: input.name, updatedAt: nowIso() }).where(eq(users.id, p.userId))],
    [
      auditStatement(
        { db: auditDb, meta, actor: { type: "user", userId: p.userId, via: "tenant" } },
        {
          tenantId: before.tenantId,
          action: "user.profile_updated",
          resourceType: "user",
          resourceId: p.userId,
          previousState: { name: before.name },
          nextState: { name: input.name },
        },
      ),
    ],
  );
  forgetPrincipal(p.userId);
  return getMe(db, { ...p, name: input.name }, undefined);
}
