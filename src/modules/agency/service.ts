import { and, asc, count, eq, getTableColumns, sql } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import {
  crossShardPage,
  everyShard,
  groupByShard,
  ofTarget,
  type ShardTarget,
  shardsHolding,
} from "../../db/cross-shard";
import { brands, locations, tenants } from "../../db/schema";
import { controlDb, shardDb } from "../../db/shards";
import { assertNotMoving } from "../../db/tenant-fence";
import type { Env } from "../../env";
import type { PlatformContext, ServiceContext } from "../../lib/context";
import type { PageQuery } from "../../lib/pagination";
import { listCampaignsAcrossTenants } from "../campaigns/service";
import { toLocation } from "../locations/schemas";
import { toTenant } from "../tenants/schemas";
import { type AgencyScope, tenantsInScope } from "../tenants/scope";
import { asTenantContext, findScopedTenant } from "../tenants/service";

/**
 * A tenant-scoped ServiceContext for an owned tenant, on the tenant's shard; another agency's tenant
 * is 404. `write`: refused with 503 TENANT_MOVING while the tenant is being moved (the directory row
 * just read, on the primary: a write request's control session is "first-primary").
 */
export async function ownedTenantContext(
  ctx: PlatformContext,
  scope: AgencyScope,
  tenantId: string,
  o: { write?: boolean } = {},
): Promise<ServiceContext> {
  const tenant = await findScopedTenant(ctx.control, scope, tenantId);
  if (o.write) assertNotMoving(tenant);
  return asTenantContext(ctx, tenant.id, shardDb(ctx.env, tenant.shard));
}

/**
 * The shards to read for an agency-wide list, each with its tenants: the one owned tenant asked for
 * (404 when not owned), or every tenant of the caller's agencies grouped by shard from the directory;
 * a platform admin reads every shard unfiltered.
 */
export async function agencyShards(env: Env, scope: AgencyScope, tenantId?: string): Promise<ShardTarget[]> {
  if (tenantId) return groupByShard(env, [await findScopedTenant(controlDb(env), scope, tenantId)]);
  return scope === "all" ? everyShard(env) : shardsHolding(env, tenantsInScope(scope));
}

export async function listAgencyLocations(env: Env, scope: AgencyScope, q: PageQuery & { tenantId?: string }) {
  return crossShardPage(await agencyShards(env, scope, q.tenantId), {
    query: q,
    sort: [locations.createdAt, locations.id],
    onShard: (target) => {
      const db = target.db;
      const where = ofTarget(locations.tenantId, target);
      return {
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
            // the shard's mirror of the directory row (kept current by mirrorTenant)
            .innerJoin(tenants, eq(tenants.id, locations.tenantId))
            .leftJoin(brands, eq(brands.id, locations.brandId))
            .where(and(where, cursor))
            .orderBy(...order)
            .limit(limit),
        count: db.select({ n: count() }).from(locations).where(where),
      };
    },
    key: (r) => [r.createdAt, r.id],
    map: ({ brandName, tenantName, tenantSlug, ...l }) => ({
      ...toLocation(l, brandName === null ? null : { id: l.brandId, name: brandName }),
      tenant: { id: l.tenantId, name: tenantName, slug: tenantSlug },
    }),
  });
}

export async function listAgencyCampaigns(env: Env, scope: AgencyScope, q: PageQuery & { tenantId?: string }) {
  return listCampaignsAcrossTenants(await agencyShards(env, scope, q.tenantId), q);
}

/** Every tenant of the agencies in scope, by name (an agency session's pick list: agency.list-tenants). */
export async function listScopeTenants(control: ControlDb, scope: AgencyScope) {
  if (scope !== "all" && scope.length === 0) return { data: [], total: 0 };
  const rows = await control
    .select()
    .from(tenants)
    .where(tenantsInScope(scope))
    .orderBy(asc(tenants.name), asc(tenants.id));
  return { data: rows.map(toTenant), total: rows.length };
}
