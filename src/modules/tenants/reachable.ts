import { and, count, eq, inArray, or, type SQL } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { tenants } from "../../db/schema";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import {
  administeredAgencies,
  isPlatformAdmin,
  resolveTenantAccess,
  type TenantAccess,
  type UserPrincipal,
} from "../identity/access";
import { toTenant } from "./schemas";
import { tenantMatches } from "./scope";

/**
 * The tenants a person reaches, each with the role they act with there (the access rule of every door,
 * identity/access.ts): their own tenant roles, every tenant of an agency they administer, and for the
 * platform admin every tenant. GET /me/tenants and the console's tenant switcher read it.
 */
export interface ReachableQuery extends PageQuery {
  /** part of the name or slug, any case */
  search?: string;
  /**
   * Only the tenants a custom hostname serves, reached without platform scope: on an agency's or a tenant's
   * own host a person works with the roles they hold there (docs/console.md, "Hosts").
   */
  host?: { scope: "tenant" | "agency"; scopeId: string; agencyId: string } | null;
}

type Principal = Pick<UserPrincipal, "kind" | "roles">;

/** The person as the access rule sees them on `host`: the platform role counts only on the platform's host. */
const onHost = (p: UserPrincipal, host: ReachableQuery["host"]): UserPrincipal =>
  host ? { ...p, roles: p.roles.filter((r) => r.scopeType !== "platform") } : p;

function scopeCondition(p: Principal, host: ReachableQuery["host"]): SQL | undefined | false {
  const hostCond = host
    ? host.scope === "tenant"
      ? eq(tenants.id, host.scopeId)
      : eq(tenants.agencyId, host.agencyId)
    : undefined;
  if (!host && isPlatformAdmin(p as UserPrincipal)) return undefined;
  const direct = p.roles.filter((r) => r.scopeType === "tenant").map((r) => r.scopeId);
  const agencies = administeredAgencies(p as UserPrincipal);
  if (!direct.length && !agencies.length) return false;
  return and(
    hostCond,
    or(
      direct.length ? inArray(tenants.id, direct) : undefined,
      agencies.length ? inArray(tenants.agencyId, agencies) : undefined,
    ),
  );
}

export async function reachableTenants(db: ControlDb, person: UserPrincipal, q: ReachableQuery) {
  const p = onHost(person, q.host);
  const scope = scopeCondition(p, q.host);
  if (scope === false)
    return {
      data: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
      total: 0,
    };
  const where = and(scope, tenantMatches(q.search));
  return keysetPage(db, {
    query: q,
    sort: [tenants.name, tenants.id],
    direction: "asc",
    rows: (cursor, order, limit) =>
      db
        .select()
        .from(tenants)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: db.select({ n: count() }).from(tenants).where(where),
    key: (t) => [t.name, t.id],
    map: (t) => {
      const access = resolveTenantAccess(p, t) as TenantAccess;
      return { ...toTenant(t), role: access.role, via: access.via as "platform" | "tenant" | "agency" };
    },
  });
}

/** Whether a person may sign in on a custom host: they hold a role in a tenant it serves (platform scope aside). */
export async function reachesHost(db: ControlDb, person: UserPrincipal, host: NonNullable<ReachableQuery["host"]>) {
  const page = await reachableTenants(db, person, { host, limit: 1 });
  return page.total > 0;
}
