import { and, eq } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { roleAssignments, ssoConfigs } from "../../db/schema";

/**
 * True when a password session would open nothing for this person: they hold roles, and every one is
 * a role in a tenant that enforces SSO (enabled + enforceSso). Login then answers sso_required, so the
 * person is sent to their IdP. Anyone with something else (a platform or agency role, a role in a
 * tenant without enforcement) signs in with the password, and each enforcing tenant refuses that
 * session its own roles (`ssoBarsDirectRoles`, identity/access.ts): enforcement is about access to a
 * tenant, never about where an account is homed (issue #44, item 2).
 */
export async function passwordLoginBlockedBySso(db: ControlDb, user: { id: string }): Promise<boolean> {
  const grants = await db
    .select({
      scopeType: roleAssignments.scopeType,
      ssoEnabled: ssoConfigs.enabled,
      enforceSso: ssoConfigs.enforceSso,
    })
    .from(roleAssignments)
    .leftJoin(
      ssoConfigs,
      and(eq(roleAssignments.scopeType, "tenant"), eq(ssoConfigs.tenantId, roleAssignments.scopeId)),
    )
    .where(eq(roleAssignments.userId, user.id));
  return grants.length > 0 && grants.every((g) => g.scopeType === "tenant" && g.ssoEnabled && g.enforceSso);
}
