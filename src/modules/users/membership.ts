import { and, eq, inArray, type SQL } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { roleAssignments, type TenantRole, users } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { validationError } from "../../lib/errors";
import { inJson } from "../../lib/sql";

/*
 * "A user holds a role on this tenant": a direct tenant grant (a role_assignments row scoped to the
 * tenant). Agency and platform admins act on a tenant but are not its users: they are not assignees,
 * alert recipients or rule targets. The one definition (test/node/one-definition.test.ts); grants are
 * control-plane rows, so every function takes the control handle.
 */

/** The tenant's grants, as a condition on role_assignments (join it with users on role_assignments.user_id). */
export const tenantGrants = (tenantId: string): SQL =>
  and(eq(roleAssignments.scopeType, "tenant"), eq(roleAssignments.scopeId, tenantId))!;

/** Which of `userIds` hold a role on the tenant. */
export async function tenantMembers(db: ControlDb, tenantId: string, userIds: readonly string[]): Promise<Set<string>> {
  if (!userIds.length) return new Set();
  const rows = await db
    .selectDistinct({ userId: roleAssignments.userId })
    .from(roleAssignments)
    .where(and(tenantGrants(tenantId), inJson(roleAssignments.userId, [...new Set(userIds)])));
  return new Set(rows.map((r) => r.userId));
}

/** A user named as an assignee or a recipient holds a role on the tenant, else 400 VALIDATION_ERROR at `issue.path`. */
export async function assertTenantMember(
  ctx: Pick<ServiceContext, "control" | "tenantId">,
  userId: string,
  issue: { path: string; message: string },
): Promise<void> {
  if (!(await tenantMembers(ctx.control, ctx.tenantId, [userId])).has(userId)) throw validationError([issue]);
}

/** The addresses of the tenant's active users holding one of `roles` (notifications by role). */
export async function tenantMemberEmails(
  db: ControlDb,
  tenantId: string,
  roles: readonly TenantRole[],
): Promise<string[]> {
  const rows = await db
    .selectDistinct({ email: users.email })
    .from(roleAssignments)
    .innerJoin(users, eq(users.id, roleAssignments.userId))
    .where(and(tenantGrants(tenantId), inArray(roleAssignments.role, [...roles]), eq(users.isActive, true)));
  return rows.map((r) => r.email);
}
