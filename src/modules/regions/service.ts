import { and, count, eq } from "drizzle-orm";
import { locations, regions } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { isUniqueViolation } from "../../lib/db-errors";
import { conflict, notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { nowIso } from "../../lib/time";
import { type CreateRegionInput, toRegion, type UpdateRegionInput } from "./schemas";

const inTenant = (ctx: ServiceContext, id: string) => and(eq(regions.id, id), eq(regions.tenantId, ctx.tenantId));

export async function listRegions(ctx: ServiceContext, q: PageQuery) {
  const where = eq(regions.tenantId, ctx.tenantId);
  return keysetPage(ctx.db, {
    query: q,
    sort: [regions.createdAt, regions.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(regions)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(regions).where(where),
    key: (r) => [r.createdAt, r.id],
    map: toRegion,
  });
}

async function findRegion(ctx: ServiceContext, id: string) {
  const row = await ctx.db.select().from(regions).where(inTenant(ctx, id)).get();
  if (!row) throw notFound("Region");
  return row;
}

export const getRegion = async (ctx: ServiceContext, id: string) => toRegion(await findRegion(ctx, id));

const nameTaken = (name: string) => conflict(`A region named '${name}' already exists in this tenant`);

export async function createRegion(ctx: ServiceContext, input: CreateRegionInput) {
  const now = nowIso();
  const row = {
    id: newId(),
    tenantId: ctx.tenantId,
    name: input.name,
    code: input.code ?? null,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await commit(ctx, [
      ctx.db.insert(regions).values(row),
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "region.created",
        resourceType: "region",
        resourceId: row.id,
        nextState: row,
      }),
    ]);
  } catch (e) {
    if (isUniqueViolation(e)) throw nameTaken(row.name);
    throw e;
  }
  return toRegion(row);
}

export async function updateRegion(ctx: ServiceContext, id: string, patch: UpdateRegionInput) {
  const before = await findRegion(ctx, id);
  const after = { ...before, ...patch, updatedAt: nowIso() };
  try {
    await commit(ctx, [
      ctx.db
        .update(regions)
        .set({ ...patch, updatedAt: after.updatedAt })
        .where(inTenant(ctx, id)),
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "region.updated",
        resourceType: "region",
        resourceId: id,
        previousState: before,
        nextState: after,
      }),
    ]);
  } catch (e) {
    if (isUniqueViolation(e)) throw nameTaken(after.name);
    throw e;
  }
  return toRegion(after);
}

/** Deleting a region detaches its locations (regionId becomes null) in the same batch. */
export async function deleteRegion(ctx: ServiceContext, id: string) {
  const before = await findRegion(ctx, id);
  const now = nowIso();
  await commit(ctx, [
    ctx.db
      .update(locations)
      .set({ regionId: null, updatedAt: now })
      .where(and(eq(locations.tenantId, ctx.tenantId), eq(locations.regionId, id))),
    ctx.db.delete(regions).where(inTenant(ctx, id)),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "region.deleted",
      resourceType: "region",
      resourceId: id,
      previousState: before,
    }),
  ]);
}
