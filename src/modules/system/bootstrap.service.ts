import { eq } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import {
  brands,
  HOUSE_AGENCY_ID,
  passwordCredentials,
  platformState,
  roleAssignments,
  tenants,
  users,
} from "../../db/schema";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import type { RequestMeta } from "../../lib/context";
import { hashPassword } from "../../lib/crypto";
import { isUniqueViolation } from "../../lib/db-errors";
import { conflict } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { signSessionToken } from "../../lib/jwt";
import { nowIso } from "../../lib/time";
import { toSessionUser } from "../auth/schemas";
import { openSession } from "../identity/sessions";
import { toTenant } from "../tenants/schemas";

export interface BootstrapInput {
  tenantName: string;
  tenantSlug: string;
  adminEmail: string;
  adminPassword: string;
  adminName: string;
}

const alreadyBootstrapped = () => conflict("The service is already bootstrapped");

/**
 * Creates the first tenant (in the built-in house agency) with its default brand, and the first
 * user as platform_admin + tenant_admin, in one batch. The platform_state primary key makes a
 * concurrent second call fail as a whole.
 */
export async function bootstrap(db: ControlDb, env: Env, meta: RequestMeta, input: BootstrapInput) {
  const done = await db.select().from(platformState).where(eq(platformState.key, "bootstrapped")).get();
  if (done) throw alreadyBootstrapped();

  const now = nowIso();
  const tenantId = newId();
  const userId = newId();
  const brandId = newId();
  const tenant = {
    id: tenantId,
    agencyId: HOUSE_AGENCY_ID,
    slug: input.tenantSlug,
    name: input.tenantName,
    plan: "starter" as const,
    isActive: true,
    pausedAt: null,
    pausedReason: null,
    // shard 0 is the control database (docs/scaling.md), so the first tenant's rows share this batch
    shard: 0,
    movingSince: null,
    createdAt: now,
    updatedAt: now,
  };
  const user = { id: userId, tenantId, email: input.adminEmail, name: input.adminName, createdAt: now, updatedAt: now };
  const audit = { db, actor: { type: "user" as const, userId, via: "platform" as const }, meta };
  const session = await openSession(db, { userId, kind: "bearer", method: "bootstrap" });
  try {
    await db.batch([
      db.insert(platformState).values({ key: "bootstrapped", value: tenantId, createdAt: now }),
      db.insert(tenants).values(tenant),
      db.insert(brands).values({
        id: brandId,
        tenantId,
        name: input.tenantName,
        slug: input.tenantSlug,
        createdAt: now,
        updatedAt: now,
      }),
      db.insert(users).values(user),
      db.insert(passwordCredentials).values({ userId, hash: await hashPassword(input.adminPassword), updatedAt: now }),
      db.insert(roleAssignments).values([
        { id: newId(), userId, role: "platform_admin", scopeType: "platform", scopeId: "", createdAt: now },
        { id: newId(), userId, role: "tenant_admin", scopeType: "tenant", scopeId: tenantId, createdAt: now },
      ]),
      session.statement,
      auditStatement(audit, {
        tenantId,
        action: "platform.bootstrap",
        resourceType: "tenant",
        resourceId: tenantId,
        nextState: { tenant, userId, brandId },
      }),
    ]);
  } catch (e) {
    if (isUniqueViolation(e)) throw alreadyBootstrapped();
    throw e;
  }
  return {
    tenant: toTenant(tenant),
    user: toSessionUser({ ...user, tenantId }),
    token: await signSessionToken(env, userId, session.id),
  };
}
