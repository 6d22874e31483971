import { and, eq } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { roleAssignments, users } from "../../db/schema";
import { tenantGrants } from "../users/membership";

/** The recipient's address while they are active and still hold a role on the tenant; null otherwise. `db`: the control plane (users, grants). */
export async function recipientEmail(db: ControlDb, tenantId: string, userId: string): Promise<string | null> {
  const row = await db
    .select({ email: users.email })
    .from(users)
    .innerJoin(roleAssignments, and(eq(roleAssignments.userId, users.id), tenantGrants(tenantId)))
    .where(and(eq(users.id, userId), eq(users.isActive, true)))
    .get();
  return row?.email ?? null;
}
