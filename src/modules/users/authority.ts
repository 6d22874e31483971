import type { Actor } from "../../lib/context";
import type { RoleGrant } from "../identity/access";

/**
 * What a change to a person touches: `tenant_roles`, the roles this tenant grants them (set, remove);
 * `account`, the account as a whole (its name, whether it is active: a deactivation locks the person
 * out of every tenant, agency and platform role they hold).
 */
export type PersonChange = "tenant_roles" | "account";

/**
 * The one rule of the user-changing routes (issue #44, item 2; docs/SECURITY.md "What a tenant admin
 * controls"): acting in a tenant, its admin (directly or through the tenant's agency) changes what that
 * tenant grants and nothing more. Its own roles, always; the account as a whole only when every role
 * the person holds lies in this tenant, so a platform admin homed here (bootstrap homes one), an agency
 * admin, or a person with roles in another tenant keeps their account whatever this tenant's admin does.
 * The platform admin's authority spans every tenant and agency, so acting through platform scope they
 * may change any account.
 */
export function mayChange(actor: Actor, tenantId: string, grants: RoleGrant[], change: PersonChange): boolean {
  if (change === "tenant_roles") return true;
  if (actor.type === "user" && actor.via === "platform") return true;
  return accountIsTenants(tenantId, grants);
}

/** Every role the person holds lies in this tenant: the account is the tenant's to manage (and DELETE deactivates it). */
export const accountIsTenants = (tenantId: string, grants: RoleGrant[]) =>
  grants.length > 0 && grants.every((g) => g.scopeType === "tenant" && g.scopeId === tenantId);
