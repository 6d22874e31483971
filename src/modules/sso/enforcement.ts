import { and, eq } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { roleAssignments, ssoConfigs } from "../../db/schema";

/**
 * True when the user's home tenant enforces SSO (enabled + enforceSso) and the user is not a
 * platform admin: such users must sign in through their IdP, not with a password.
 */
export async function passwordLoginBlockedBySso(
  db: ControlDb,
  user: { id: string; tenantId: string | null },
): Promise<boolean> {
  if (!user.tenantId) return false;
  const [config, platformGrant] = await db.batch([
    db
      .select({ enabled: ssoConfigs.enabled, enforceSso: ssoConfigs.enforceSso })
      .from(ssoConfigs)
      .where(eq(ssoConfigs.tenantId, user.tenantId))
      .limit(1),
    db
      .select({ id: roleAssignments.id })
      .from(roleAssignments)
      .where(
        and(
          eq(roleAssignments.userId, user.id),
          eq(roleAssignments.role, "platform_admin"),
          eq(roleAssignments.scopeType, "platform"),
        ),
      )
      .limit(1),
  ]);
  return Boolean(config[0]?.enabled && config[0].enforceSso) && platformGrant.length === 0;
}
