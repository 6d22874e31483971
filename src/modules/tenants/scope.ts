import { inArray, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/client";
import { tenants } from "../../db/schema";
import { administeredAgencies, isPlatformAdmin, type Principal } from "../identity/access";

/** The agencies whose tenants a caller of /agency/* (or /admin/*) acts on: every one for platform admins. */
export type AgencyScope = "all" | string[];

export const agencyScopeOf = (p: Principal): AgencyScope => (isPlatformAdmin(p) ? "all" : administeredAgencies(p));

export const inAgencyScope = (scope: AgencyScope, agencyId: string) => scope === "all" || scope.includes(agencyId);

/** Condition on the tenants table itself. */
export const tenantsInScope = (scope: AgencyScope): SQL | undefined => (scope === "all" ? undefined : inArray(tenants.agencyId, scope));

/**
 * Condition on any table's tenant_id column: the row belongs to a tenant of the scope's agencies.
 * Agency-wide lists (locations, campaigns, ...) filter with this.
 */
export const ownedByScope = (db: Db, tenantIdColumn: SQLiteColumn, scope: AgencyScope): SQL | undefined =>
  scope === "all" ? undefined : inArray(tenantIdColumn, db.select({ id: tenants.id }).from(tenants).where(inArray(tenants.agencyId, scope)));
