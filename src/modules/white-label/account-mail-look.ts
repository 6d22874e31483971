import { eq, inArray } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { roleAssignments, type ScopeType, tenants } from "../../db/schema";
import type { Env } from "../../env";
import { agencyBrand, agencyHostname, type EffectiveBrand, publicBaseUrlOf, tenantWhiteLabel } from "./resolve";

/** Whose look a person's account mail wears. */
export type AccountMailScope =
  | { scope: "tenant"; tenantId: string }
  | { scope: "agency"; agencyId: string }
  | { scope: "platform" };

/**
 * The rule (issue #44, item 7; docs/white-label.md "Account mail"): a tenant's brand only when every
 * role the person holds lies in that tenant; an agency's when every role lies within that agency (its
 * agency_admin role, roles in its tenants); otherwise, and for a person with no role or a platform role,
 * only the platform's. Whoever administers a white label can then never put their words (a name, a
 * support address) or their host in the mail of someone who is more than theirs: a platform admin homed
 * in their tenant, an admin of another tenant. `agencyOf` maps each tenant the grants name to its agency.
 */
export function accountMailScope(
  grants: { scopeType: ScopeType; scopeId: string }[],
  agencyOf: ReadonlyMap<string, string>,
): AccountMailScope {
  if (grants.length === 0 || grants.some((g) => g.scopeType === "platform")) return { scope: "platform" };
  const tenantIds = new Set(grants.filter((g) => g.scopeType === "tenant").map((g) => g.scopeId));
  const agencyIds = new Set(grants.filter((g) => g.scopeType === "agency").map((g) => g.scopeId));
  if (agencyIds.size === 0 && tenantIds.size === 1) return { scope: "tenant", tenantId: [...tenantIds][0]! };
  const agencies = new Set(agencyIds);
  for (const t of tenantIds) {
    const agency = agencyOf.get(t);
    if (!agency) return { scope: "platform" };
    agencies.add(agency);
  }
  return agencies.size === 1 ? { scope: "agency", agencyId: [...agencies][0]! } : { scope: "platform" };
}

export interface AccountMailLook {
  scope: AccountMailScope;
  /** the brand the message wears; null: the platform's own */
  brand: EffectiveBrand | null;
  /** the origin its links point at: the tenant's or agency's active custom hostname, else PUBLIC_BASE_URL */
  baseUrl: string;
}

const platformUrl = (env: Pick<Env, "PUBLIC_BASE_URL">) => env.PUBLIC_BASE_URL.replace(/\/+$/, "");

/** The look of the account mail to this person, from every role they hold now (control database). */
export async function accountMailLook(
  db: ControlDb,
  env: Pick<Env, "PUBLIC_BASE_URL">,
  userId: string,
): Promise<AccountMailLook> {
  const tenantGrants = db
    .select({ id: roleAssignments.scopeId })
    .from(roleAssignments)
    .where(eq(roleAssignments.userId, userId));
  const [grants, tenantAgencies] = await db.batch([
    db
      .select({ scopeType: roleAssignments.scopeType, scopeId: roleAssignments.scopeId })
      .from(roleAssignments)
      .where(eq(roleAssignments.userId, userId)),
    db.select({ id: tenants.id, agencyId: tenants.agencyId }).from(tenants).where(inArray(tenants.id, tenantGrants)),
  ]);
  const scope = accountMailScope(grants, new Map(tenantAgencies.map((t) => [t.id, t.agencyId])));
  if (scope.scope === "tenant") {
    const wl = await tenantWhiteLabel(db, scope.tenantId);
    return { scope, brand: wl?.brand ?? null, baseUrl: publicBaseUrlOf(env, wl) };
  }
  if (scope.scope === "agency") {
    const [brand, hostname] = await Promise.all([agencyBrand(db, scope.agencyId), agencyHostname(db, scope.agencyId)]);
    return { scope, brand, baseUrl: hostname ? `https://${hostname}` : platformUrl(env) };
  }
  return { scope, brand: null, baseUrl: platformUrl(env) };
}
