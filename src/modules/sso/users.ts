import type { Profile } from "@node-saml/node-saml";
import { eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { ControlDb } from "../../db/client";
import { roleAssignments, type TenantRole, users } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import type { ServiceContext } from "../../lib/context";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { Email } from "../../lib/validators";
import { roleAtLeast } from "../identity/access";
import { SamlRejection } from "./rejection";
import type { AttributeMapping, SsoConfigRow } from "./schemas";

export interface SamlIdentity {
  email: string;
  name: string;
  /** from attributeMapping.role + roleValues; only used when the user is created */
  role: TenantRole | null;
}

const values = (profile: Profile, attribute: string | undefined): string[] => {
  const raw = attribute ? (profile.attributes as Record<string, unknown> | undefined)?.[attribute] : undefined;
  return (Array.isArray(raw) ? raw : [raw])
    .filter((v): v is string => typeof v === "string" && v.trim() !== "")
    .map((v) => v.trim());
};

/** Email, name and role from the verified assertion, through the tenant's attribute mapping. */
export function identityFromProfile(profile: Profile, mapping: AttributeMapping): SamlIdentity {
  const email = Email.safeParse(values(profile, mapping.email)[0] ?? profile.nameID);
  if (!email.success) throw new SamlRejection("email_missing");
  const fullName = [values(profile, mapping.firstName)[0], values(profile, mapping.lastName)[0]]
    .filter(Boolean)
    .join(" ");
  const name = (values(profile, mapping.name)[0] ?? (fullName || email.data.split("@")[0]!)).slice(0, 200);
  const mapped = values(profile, mapping.role)
    .map((v) => mapping.roleValues?.[v])
    .filter((r): r is TenantRole => Boolean(r));
  const role = mapped.reduce<TenantRole | null>((best, r) => (!best || roleAtLeast(r, best) ? r : best), null);
  return { email: email.data, name, role };
}

export interface SignInUser {
  userId: string;
  provisioned: boolean;
  /** the user and role rows to create (JIT) on the control database, to commit with the login's audit rows */
  controlStatements: (control: ControlDb) => BatchItem<"sqlite">[];
  /** the JIT audit row, on the tenant's shard (`ctx.db`) */
  auditStatements: BatchItem<"sqlite">[];
}

/**
 * The tenant's user for this identity. A tenant's IdP may only sign in users that belong to that
 * tenant alone: home tenant this one (or none) and every role grant on this tenant. Anyone with a
 * grant elsewhere (platform or agency admin, another tenant) is refused, so no IdP can reach
 * beyond its own tenant. Unknown emails are created when JIT provisioning is on.
 */
export async function findOrProvisionUser(
  ctx: ServiceContext,
  config: SsoConfigRow,
  identity: SamlIdentity,
): Promise<SignInUser> {
  const control = ctx.control;
  const [found, grants] = await control.batch([
    control.select().from(users).where(eq(users.email, identity.email)).limit(1),
    control
      .select({ scopeType: roleAssignments.scopeType, scopeId: roleAssignments.scopeId })
      .from(roleAssignments)
      .innerJoin(users, eq(users.id, roleAssignments.userId))
      .where(eq(users.email, identity.email)),
  ]);
  const user = found[0];
  if (user) {
    if (!user.isActive) throw new SamlRejection("user_inactive");
    const ownTenantOnly =
      grants.length > 0 && grants.every((g) => g.scopeType === "tenant" && g.scopeId === ctx.tenantId);
    if (!ownTenantOnly || (user.tenantId ?? ctx.tenantId) !== ctx.tenantId)
      throw new SamlRejection("user_not_eligible");
    return { userId: user.id, provisioned: false, controlStatements: () => [], auditStatements: [] };
  }
  if (!config.jitProvisioning) throw new SamlRejection("user_not_found");

  const now = nowIso();
  const created = {
    id: newId(),
    tenantId: ctx.tenantId,
    email: identity.email,
    name: identity.name,
    authProvider: "saml",
    avatarUrl: null,
    isActive: true,
    createdAt: now,
    updatedAt: now,
  };
  const role = identity.role ?? config.defaultRole;
  const grant = {
    id: newId(),
    userId: created.id,
    role,
    scopeType: "tenant" as const,
    scopeId: ctx.tenantId,
    createdAt: now,
  };
  return {
    userId: created.id,
    provisioned: true,
    controlStatements: (db) => [db.insert(users).values(created), db.insert(roleAssignments).values(grant)],
    auditStatements: [
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "user.created",
        resourceType: "user",
        resourceId: created.id,
        nextState: { ...created, role },
        metadata: { source: "saml_jit" },
      }),
    ],
  };
}
