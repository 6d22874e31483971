import { and, asc, count, eq } from "drizzle-orm";
import type { ControlDb, ShardDb } from "../../db/client";
import {
  agencies,
  brands,
  HOUSE_AGENCY_ID,
  type MessagingSettingsRow,
  messagingSettings,
  tenants,
} from "../../db/schema";
import { controlDb, forgetTenantShard, mirrorTenant, placeTenant, shardDb } from "../../db/shards";
import { assertNotMoving } from "../../db/tenant-fence";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { PlatformContext, ServiceContext } from "../../lib/context";
import { isUniqueViolation } from "../../lib/db-errors";
import { conflict, forbidden, notFound, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { nowIso } from "../../lib/time";
import { slugify } from "../../lib/validators";
import { toBrand } from "../brands/schemas";
import { forgetTenantRef } from "../identity/principal-cache";
import { countForTenants } from "./counts";
import { type CreateTenantInput, toTenant, type UpdateTenantInput } from "./schemas";
import { type AgencyScope, inAgencyScope, tenantMatches, tenantsInScope } from "./scope";

type TenantRow = typeof tenants.$inferSelect;

/** A tenant is active or paused; PATCH isActive moves it. Pausing an already paused tenant only updates the reason. */
const TENANT_STATES = { active: ["paused"], paused: ["active"] } as const;
const stateOf = (t: { isActive: boolean }) => (t.isActive ? "active" : "paused");

/** The tenant as a ServiceContext, for reusing tenant services from /agency routes once ownership is checked. */
/** A platform context acting in one tenant, on the tenant's shard `db`. */
export const asTenantContext = (pctx: PlatformContext, tenantId: string, db: ShardDb): ServiceContext => ({
  ...pctx,
  db,
  tenantId,
});

/** A tenant of the scope; any other id (unknown or another agency's) is the same 404. */
export async function findScopedTenant(db: ControlDb, scope: AgencyScope, id: string): Promise<TenantRow> {
  const row = await db
    .select()
    .from(tenants)
    .where(and(eq(tenants.id, id), tenantsInScope(scope)))
    .get();
  if (!row) throw notFound("Tenant");
  return row;
}

export async function listTenants(
  env: Env,
  scope: AgencyScope,
  q: PageQuery & { search?: string; agencyId?: string; isActive?: boolean },
) {
  const where = and(
    tenantsInScope(scope),
    tenantMatches(q.search),
    q.agencyId ? eq(tenants.agencyId, q.agencyId) : undefined,
    q.isActive === undefined ? undefined : eq(tenants.isActive, q.isActive),
  );
  const db = controlDb(env);
  const page = await keysetPage(db, {
    query: q,
    sort: [tenants.createdAt, tenants.id],
    rows: (cursor, order, limit) =>
      db
        .select()
        .from(tenants)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: db.select({ n: count() }).from(tenants).where(where),
    key: (t) => [t.createdAt, t.id],
    map: (row) => ({ dto: toTenant(row), shard: row.shard }),
  });
  const counts = await countForTenants(
    env,
    page.data.map((t) => ({ id: t.dto.id, shard: t.shard })),
  );
  return { ...page, data: page.data.map((t) => ({ ...t.dto, _count: counts.get(t.dto.id)!, shard: t.shard })) };
}

/** The tenant's own email sender (messaging settings, channel email), or null until it sets one. */
const emailConfigOf = (e: MessagingSettingsRow | undefined) =>
  e
    ? {
        fromAddress: e.config.fromAddress ?? "",
        fromName: e.config.fromName ?? "",
        senderDomain: e.config.senderDomain ?? null,
        dkimStatus: e.dkimStatus,
        dmarcStatus: e.dmarcStatus,
      }
    : null;

/** The directory row (control database) with its brands and settings (the tenant's shard). */
async function detail(env: Env, row: TenantRow) {
  const db = shardDb(env, row.shard);
  const [brandRows, counts, email] = await Promise.all([
    db.select().from(brands).where(eq(brands.tenantId, row.id)).orderBy(asc(brands.createdAt), asc(brands.id)),
    countForTenants(env, [row]),
    db
      .select()
      .from(messagingSettings)
      .where(and(eq(messagingSettings.tenantId, row.id), eq(messagingSettings.channel, "email")))
      .get(),
  ]);
  return {
    ...toTenant(row),
    brands: brandRows.map(toBrand),
    emailConfig: emailConfigOf(email),
    _count: counts.get(row.id)!,
  };
}

export const getTenantDetail = async (env: Env, scope: AgencyScope, id: string) =>
  detail(env, await findScopedTenant(controlDb(env), scope, id));

async function resolveAgency(db: ControlDb, scope: AgencyScope, agencyId: string | undefined): Promise<string> {
  if (agencyId) {
    if (!inAgencyScope(scope, agencyId)) throw forbidden("You do not administer this agency");
    const exists = await db.select({ id: agencies.id }).from(agencies).where(eq(agencies.id, agencyId)).get();
    if (!exists) throw validationError([{ path: "agencyId", message: "Unknown agency" }]);
    return agencyId;
  }
  if (scope === "all") return HOUSE_AGENCY_ID;
  if (scope.length === 1) return scope[0]!;
  throw validationError([{ path: "agencyId", message: "Required when you administer several agencies" }]);
}

/**
 * The directory row on the control database, then on the placed shard its mirror, default brand and
 * audit event in one batch (one batch when the shard is the control database).
 */
export async function createTenant(ctx: PlatformContext, scope: AgencyScope, input: CreateTenantInput) {
  const agencyId = await resolveAgency(ctx.control, scope, input.agencyId);
  const now = nowIso();
  const tenant: TenantRow = {
    id: newId(),
    agencyId,
    slug: input.slug,
    name: input.name,
    plan: input.plan,
    isActive: true,
    pausedAt: null,
    pausedReason: null,
    shard: await placeTenant(ctx.env, agencyId),
    movingSince: null,
    createdAt: now,
    updatedAt: now,
  };
  const brandName = input.brandName ?? input.name;
  const brand = {
    id: newId(),
    tenantId: tenant.id,
    name: brandName,
    slug: input.brandSlug ?? slugify(brandName),
    logoUrl: null,
    websiteUrl: null,
    corporateAddress: null,
    googleMyBusinessUrl: null,
    googlePlaceId: null,
    yelpUrl: null,
    yelpBusinessId: null,
    facebookUrl: null,
    facebookPageId: null,
    brandVoice: null,
    brandTone: null,
    brandDescription: null,
    isActive: true,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await ctx.control.insert(tenants).values(tenant);
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict(`A tenant with slug '${input.slug}' already exists`);
    throw e;
  }
  await mirrorTenant(ctx.env, tenant);
  const onShard = { ...ctx, db: shardDb(ctx.env, tenant.shard) };
  await commit(onShard, [
    onShard.db.insert(brands).values(brand),
    auditStatement(onShard, {
      tenantId: tenant.id,
      action: "tenant.created",
      resourceType: "tenant",
      resourceId: tenant.id,
      nextState: { tenant, brandId: brand.id },
    }),
  ]);
  return {
    ...toTenant(tenant),
    brands: [toBrand(brand)],
    emailConfig: null,
    _count: (await countForTenants(ctx.env, [tenant])).get(tenant.id)!,
  };
}

/** Rename, change plan, pause (isActive false: pausedAt, pausedReason) or resume (clears both). */
export async function updateTenant(ctx: PlatformContext, scope: AgencyScope, id: string, patch: UpdateTenantInput) {
  const before = await findScopedTenant(ctx.control, scope, id);
  // its audit row and mirror land on the tenant's shard: not while a move copies it
  assertNotMoving(before);
  const from = stateOf(before);
  const to = patch.isActive === undefined ? from : stateOf({ isActive: patch.isActive });
  if (patch.pausedReason !== undefined && to !== "paused") {
    throw validationError([{ path: "pausedReason", message: "Only applies to a paused tenant" }]);
  }
  const now = nowIso();
  const moved = from !== to && (TENANT_STATES[from] as readonly string[]).includes(to);
  const set: Partial<TenantRow> = { updatedAt: now };
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.plan !== undefined) set.plan = patch.plan;
  if (moved && to === "paused")
    Object.assign(set, { isActive: false, pausedAt: now, pausedReason: patch.pausedReason ?? null });
  if (moved && to === "active") Object.assign(set, { isActive: true, pausedAt: null, pausedReason: null });
  if (!moved && to === "paused" && patch.pausedReason !== undefined) set.pausedReason = patch.pausedReason;
  const after = { ...before, ...set };
  const action = moved ? (to === "paused" ? "tenant.paused" : "tenant.resumed") : "tenant.updated";
  await ctx.control.update(tenants).set(set).where(eq(tenants.id, id));
  await mirrorTenant(ctx.env, after);
  const onShard = { ...ctx, db: shardDb(ctx.env, after.shard) };
  await commit(onShard, [
    auditStatement(onShard, {
      tenantId: id,
      action,
      resourceType: "tenant",
      resourceId: id,
      previousState: before,
      nextState: after,
    }),
  ]);
  forgetTenantRef(id);
  forgetTenantShard(id);
  return detail(ctx.env, after);
}
