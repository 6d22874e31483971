import { and, count, eq, getTableColumns, sql } from "drizzle-orm";
import { crossShardPage, ofTarget, type ShardTarget } from "../../db/cross-shard";
import { brands, campaigns, locations, tenants } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { notFound, type ValidationIssue, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { nowIso } from "../../lib/time";
import { type CampaignRow, type CreateCampaignInput, toCampaign, type UpdateCampaignInput } from "./schemas";

export async function listCampaigns(
  ctx: ServiceContext,
  q: PageQuery & { locationId?: string; brandId?: string; isActive?: boolean },
) {
  const where = and(
    eq(campaigns.tenantId, ctx.tenantId),
    q.locationId ? eq(campaigns.locationId, q.locationId) : undefined,
    q.brandId ? eq(campaigns.brandId, q.brandId) : undefined,
    q.isActive === undefined ? undefined : eq(campaigns.isActive, q.isActive),
  );
  return keysetPage(ctx.db, {
    query: q,
    sort: [campaigns.createdAt, campaigns.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(campaigns)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(campaigns).where(where),
    key: (c) => [c.createdAt, c.id],
    map: toCampaign,
  });
}

/** Campaigns of many tenants, newest first, each with its tenant: one keyset page merged across the target shards. */
export async function listCampaignsAcrossTenants(targets: ShardTarget[], q: PageQuery) {
  return crossShardPage(targets, {
    query: q,
    sort: [campaigns.createdAt, campaigns.id],
    onShard: (target) => {
      const db = target.db;
      const where = ofTarget(campaigns.tenantId, target);
      return {
        rows: (cursor, order, limit) =>
          db
            // aliased: D1 batch results are keyed by column name, so a second "name" would overwrite the first
            .select({
              ...getTableColumns(campaigns),
              tenantName: sql<string>`${tenants.name}`.as("tenant_name"),
              tenantSlug: tenants.slug,
            })
            .from(campaigns)
            .innerJoin(tenants, eq(tenants.id, campaigns.tenantId))
            .where(and(where, cursor))
            .orderBy(...order)
            .limit(limit),
        count: db.select({ n: count() }).from(campaigns).where(where),
      };
    },
    key: (c) => [c.createdAt, c.id],
    map: ({ tenantName, tenantSlug, ...c }) => ({
      ...toCampaign(c),
      tenant: { id: c.tenantId, name: tenantName, slug: tenantSlug },
    }),
  });
}

export async function findCampaignRow(ctx: ServiceContext, id: string): Promise<CampaignRow> {
  const row = await ctx.db
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.id, id), eq(campaigns.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Campaign");
  return row;
}

export const getCampaign = async (ctx: ServiceContext, id: string) => toCampaign(await findCampaignRow(ctx, id));

/** The location and brand must be this tenant's, the location of that brand, and startsAt before endsAt. */
async function validate(ctx: ServiceContext, c: Pick<CampaignRow, "locationId" | "brandId" | "startsAt" | "endsAt">) {
  const issues: ValidationIssue[] = [];
  if (c.startsAt && c.endsAt && c.startsAt >= c.endsAt)
    issues.push({ path: "endsAt", message: "endsAt must be after startsAt" });
  const [locationRows, brandRows] = await ctx.db.batch([
    ctx.db
      .select({ brandId: locations.brandId })
      .from(locations)
      .where(and(eq(locations.id, c.locationId ?? ""), eq(locations.tenantId, ctx.tenantId)))
      .limit(1),
    ctx.db
      .select({ id: brands.id })
      .from(brands)
      .where(and(eq(brands.id, c.brandId ?? ""), eq(brands.tenantId, ctx.tenantId)))
      .limit(1),
  ]);
  if (c.locationId && !locationRows[0]) issues.push({ path: "locationId", message: "Unknown location" });
  if (c.brandId && !brandRows[0]) issues.push({ path: "brandId", message: "Unknown brand" });
  if (locationRows[0] && brandRows[0] && locationRows[0].brandId !== c.brandId) {
    issues.push({ path: "brandId", message: "The location belongs to another brand" });
  }
  if (issues.length) throw validationError(issues);
}

/** Creates a campaign in ctx's tenant; the /v1 route and the agency route both call this. New campaigns are active. */
export async function createCampaign(ctx: ServiceContext, input: CreateCampaignInput) {
  const now = nowIso();
  const row: CampaignRow = {
    id: newId(),
    tenantId: ctx.tenantId,
    locationId: input.locationId ?? null,
    brandId: input.brandId ?? null,
    name: input.name,
    type: input.type,
    channels: input.channels,
    isActive: true,
    startsAt: input.startsAt ?? null,
    endsAt: input.endsAt ?? null,
    metadata: input.metadata ?? {},
    reviewDestination: input.reviewDestination ?? "auto",
    createdAt: now,
    updatedAt: now,
  };
  await validate(ctx, row);
  await commit(ctx, [
    ctx.db.insert(campaigns).values(row),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "campaign.created",
      resourceType: "campaign",
      resourceId: row.id,
      nextState: row,
    }),
  ]);
  return toCampaign(row);
}

export async function updateCampaign(ctx: ServiceContext, id: string, patch: UpdateCampaignInput) {
  const before = await findCampaignRow(ctx, id);
  const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<CampaignRow>;
  const after: CampaignRow = { ...before, ...defined, updatedAt: nowIso() };
  await validate(ctx, after);
  await commit(ctx, [
    ctx.db
      .update(campaigns)
      .set({ ...defined, updatedAt: after.updatedAt })
      .where(and(eq(campaigns.id, id), eq(campaigns.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "campaign.updated",
      resourceType: "campaign",
      resourceId: id,
      previousState: before,
      nextState: after,
    }),
  ]);
  return toCampaign(after);
}

/** Activate / deactivate from any state; setting the value it already has changes nothing. */
export async function setCampaignActive(ctx: ServiceContext, id: string, isActive: boolean) {
  const before = await findCampaignRow(ctx, id);
  if (before.isActive === isActive) return toCampaign(before);
  const after: CampaignRow = { ...before, isActive, updatedAt: nowIso() };
  await commit(ctx, [
    ctx.db
      .update(campaigns)
      .set({ isActive, updatedAt: after.updatedAt })
      .where(and(eq(campaigns.id, id), eq(campaigns.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: isActive ? "campaign.activated" : "campaign.deactivated",
      resourceType: "campaign",
      resourceId: id,
      previousState: { isActive: before.isActive },
      nextState: { isActive },
    }),
  ]);
  return toCampaign(after);
}
