import { and, asc, count, eq, getTableColumns, sql } from "drizzle-orm";
import { brands, locations, regions } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { isUniqueViolation } from "../../lib/db-errors";
import { conflict, notFound, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { nowIso } from "../../lib/time";
import { type CreateLocationInput, type LocationRow, toLocation, type UpdateLocationInput } from "./schemas";

// aliased: D1 collapses duplicate column names in a join (locations.name vs brands.name)
const withBrand = {
  ...getTableColumns(locations),
  brandName: sql<string | null>`${brands.name}`.as("brand_name"),
};

type JoinedRow = LocationRow & { brandName: string | null };

const fromJoined = ({ brandName, ...l }: JoinedRow) =>
  toLocation(l, brandName === null ? null : { id: l.brandId, name: brandName });

const selectJoined = (ctx: ServiceContext) =>
  ctx.db.select(withBrand).from(locations).leftJoin(brands, eq(brands.id, locations.brandId));

export async function listLocations(
  ctx: ServiceContext,
  q: PageQuery & { brandId?: string; regionId?: string; isActive?: boolean },
) {
  const where = and(
    eq(locations.tenantId, ctx.tenantId),
    q.brandId ? eq(locations.brandId, q.brandId) : undefined,
    q.regionId ? eq(locations.regionId, q.regionId) : undefined,
    q.isActive === undefined ? undefined : eq(locations.isActive, q.isActive),
  );
  return keysetPage(ctx.db, {
    query: q,
    sort: [locations.createdAt, locations.id],
    rows: (cursor, order, limit) =>
      selectJoined(ctx)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(locations).where(where),
    key: (l) => [l.createdAt, l.id],
    map: fromJoined,
  });
}

async function findRow(ctx: ServiceContext, id: string): Promise<JoinedRow> {
  const row = await selectJoined(ctx)
    .where(and(eq(locations.id, id), eq(locations.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Location");
  return row;
}

export const getLocation = async (ctx: ServiceContext, id: string) => fromJoined(await findRow(ctx, id));

/**
 * Resolves the brand (default: the tenant's oldest active brand) and checks that a given region
 * belongs to the tenant. A reference to another tenant's brand or region is a validation error.
 */
async function resolveRefs(ctx: ServiceContext, brandId: string | undefined, regionId: string | null | undefined) {
  const [brandRows, regionRows] = await ctx.db.batch([
    brandId
      ? ctx.db
          .select({ id: brands.id, name: brands.name })
          .from(brands)
          .where(and(eq(brands.id, brandId), eq(brands.tenantId, ctx.tenantId)))
          .limit(1)
      : ctx.db
          .select({ id: brands.id, name: brands.name })
          .from(brands)
          .where(and(eq(brands.tenantId, ctx.tenantId), eq(brands.isActive, true)))
          .orderBy(asc(brands.createdAt), asc(brands.id))
          .limit(1),
    ctx.db
      .select({ id: regions.id })
      .from(regions)
      .where(and(eq(regions.id, regionId ?? ""), eq(regions.tenantId, ctx.tenantId)))
      .limit(1),
  ]);
  const brand = brandRows[0];
  if (!brand) {
    throw validationError([{ path: "brandId", message: brandId ? "Unknown brand" : "The tenant has no active brand" }]);
  }
  if (regionId && !regionRows[0]) throw validationError([{ path: "regionId", message: "Unknown region" }]);
  return brand;
}

const externalIdTaken = (externalId: string | null) =>
  conflict(`A location with externalId '${externalId}' already exists`);

export async function createLocation(ctx: ServiceContext, input: CreateLocationInput) {
  const brand = await resolveRefs(ctx, input.brandId, input.regionId);
  const now = nowIso();
  const row: LocationRow = {
    regionId: null,
    externalId: null,
    addressLine1: null,
    addressLine2: null,
    city: null,
    state: null,
    postalCode: null,
    phone: null,
    email: null,
    websiteUrl: null,
    googleMyBusinessUrl: null,
    googlePlaceId: null,
    yelpUrl: null,
    yelpBusinessId: null,
    facebookUrl: null,
    facebookPageId: null,
    latitude: null,
    longitude: null,
    ...input,
    country: input.country ?? "US",
    timezone: input.timezone ?? "UTC",
    locale: input.locale ?? "en-US",
    id: newId(),
    tenantId: ctx.tenantId,
    brandId: brand.id,
    isActive: true,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await commit(ctx, [
      ctx.db.insert(locations).values(row),
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "location.created",
        resourceType: "location",
        resourceId: row.id,
        nextState: row,
      }),
    ]);
  } catch (e) {
    if (isUniqueViolation(e)) throw externalIdTaken(row.externalId);
    throw e;
  }
  return toLocation(row, brand);
}

export async function updateLocation(ctx: ServiceContext, id: string, patch: UpdateLocationInput) {
  const { brandName, ...before } = await findRow(ctx, id);
  const brand =
    patch.brandId !== undefined || patch.regionId
      ? await resolveRefs(ctx, patch.brandId ?? before.brandId, patch.regionId)
      : { id: before.brandId, name: brandName ?? "" };
  const after: LocationRow = { ...before, ...patch, brandId: brand.id, updatedAt: nowIso() };
  try {
    await commit(ctx, [
      ctx.db
        .update(locations)
        .set({ ...patch, updatedAt: after.updatedAt })
        .where(and(eq(locations.id, id), eq(locations.tenantId, ctx.tenantId))),
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "location.updated",
        resourceType: "location",
        resourceId: id,
        previousState: before,
        nextState: after,
      }),
    ]);
  } catch (e) {
    if (isUniqueViolation(e)) throw externalIdTaken(after.externalId);
    throw e;
  }
  return toLocation(after, brand);
}
