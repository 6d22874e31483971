import { inArray, type SQL } from "drizzle-orm";
import { tenants } from "../../db/schema";
import type { AgencyScope } from "../../lib/context";
import { administeredAgencies, isPlatformAdmin, type Principal } from "../identity/access";

export type { AgencyScope };

export const agencyScopeOf = (p: Principal): AgencyScope => (isPlatformAdmin(p) ? "all" : administeredAgencies(p));

export const inAgencyScope = (scope: AgencyScope, agencyId: string) => scope === "all" || scope.includes(agencyId);

/** Condition on the tenants table itself. */
export const tenantsInScope = (scope: AgencyScope): SQL | undefined =>
  scope === "all" ? undefined : inArray(tenants.agencyId, scope);
