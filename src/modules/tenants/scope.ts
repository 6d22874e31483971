import { inArray, type SQL, sql } from "drizzle-orm";
import { tenants } from "../../db/schema";
import type { AgencyScope } from "../../lib/context";
import { administeredAgencies, isPlatformAdmin, type Principal } from "../identity/access";

export type { AgencyScope };

export const agencyScopeOf = (p: Principal): AgencyScope => (isPlatformAdmin(p) ? "all" : administeredAgencies(p));

export const inAgencyScope = (scope: AgencyScope, agencyId: string) => scope === "all" || scope.includes(agencyId);

/** Condition on the tenants table itself. */
export const tenantsInScope = (scope: AgencyScope): SQL | undefined =>
  scope === "all" ? undefined : inArray(tenants.agencyId, scope);

/** A tenant whose name or slug holds the term, any case (the switcher's and the admin list's search). */
export function tenantMatches(search: string | undefined): SQL | undefined {
  const term = search?.trim().toLowerCase();
  return term ? sql`(instr(lower(${tenants.name}), ${term}) > 0 or instr(${tenants.slug}, ${term}) > 0)` : undefined;
}
