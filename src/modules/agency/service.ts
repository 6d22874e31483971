import { listCampaignsAcrossTenants } from "../campaigns/service";
import { and, count, eq, getTableColumns, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/client";
import { controlDb, shardDb } from "../../db/shards";
import { brands, campaigns, locations, tenants } from "../../db/schema";
import type { PlatformContext, ServiceContext } from "../../lib/context";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { toLocation } from "../locations/schemas";
import { ownedByScope, type AgencyScope } from "../tenants/scope";
import { asTenantContext, findScopedTenant } from "../tenants/service";

/** A tenant-scoped ServiceContext for an owned tenant, on the tenant's shard; another agency's tenant is 404. */
export async function ownedTenantContext(ctx: PlatformContext, scope: AgencyScope, tenantId: string): Promise<ServiceContext> {
  const tenant = await findScopedTenant(controlDb(ctx.env), scope, tenantId);
  return { ...asTenantContext(ctx, tenant.id), db: shardDb(ctx.env, tenant.shard) };
}

/**
 * The condition for agency-wide lists: rows of owned tenants, or of the one owned tenant asked for
 * (which must be owned: 404 otherwise).
 */
export async function agencyListFilter(db: Db, scope: AgencyScope, tenantIdColumn: SQLiteColumn, tenantId?: string) {
  if (tenantId) return eq(tenantIdColumn, (await findScopedTenant(db, scope, tenantId)).id);
  return ownedByScope(db, tenantIdColumn, scope);
}

export async function listAgencyLocations(db: Db, scope: AgencyScope, q: PageQuery & { tenantId?: string }) {
  const where = await agencyListFilter(db, scope, locations.tenantId, q.tenantId);
  return keysetPage(db, {
    query: q,
    sort: [locations.createdAt, locations.id],
    rows: (cursor, order, limit) =>
      db
        .select({
          ...getTableColumns(locations),
          // aliased: D1 returns rows keyed by column name, so joined columns must not share a name
          brandName: sql<string | null>`${brands.name}`.as("brand_name"),
          tenantName: sql<string>`${tenants.name}`.as("tenant_name"),
          tenantSlug: sql<string>`${tenants.slug}`.as("tenant_slug"),
        })
        .from(locations)
        .innerJoin(tenants, eq(tenants.id, locations.tenantId))
        .leftJoin(brands, eq(brands.id, locations.brandId))
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: db.select({ n: count() }).from(locations).where(where),
    key: (r) => [r.createdAt, r.id],
    map: ({ brandName, tenantName, tenantSlug, ...l }) => ({
      ...toLocation(l, brandName === null ? null : { id: l.brandId, name: brandName }),
      tenant: { id: l.tenantId, name: tenantName, slug: tenantSlug },
    }),
  });
}

export async function listAgencyCampaigns(db: Db, scope: AgencyScope, q: PageQuery & { tenantId?: string }) {
  return listCampaignsAcrossTenants(db, await agencyListFilter(db, scope, campaigns.tenantId, q.tenantId), q);
}
