import { and, count, eq } from "drizzle-orm";
import { brands } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { isUniqueViolation } from "../../lib/db-errors";
import { conflict, notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { nowIso } from "../../lib/time";
import { slugify } from "../../lib/validators";
import { type CreateBrandInput, toBrand, type UpdateBrandInput } from "./schemas";

export async function listBrands(ctx: ServiceContext, q: PageQuery & { isActive?: boolean }) {
  const where = and(
    eq(brands.tenantId, ctx.tenantId),
    q.isActive === undefined ? undefined : eq(brands.isActive, q.isActive),
  );
  return keysetPage(ctx.db, {
    query: q,
    sort: [brands.createdAt, brands.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(brands)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(brands).where(where),
    key: (b) => [b.createdAt, b.id],
    map: toBrand,
  });
}

async function findBrandRow(ctx: ServiceContext, id: string) {
  const row = await ctx.db
    .select()
    .from(brands)
    .where(and(eq(brands.id, id), eq(brands.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Brand");
  return row;
}

export const getBrand = async (ctx: ServiceContext, id: string) => toBrand(await findBrandRow(ctx, id));

const slugTaken = (slug: string) => conflict(`A brand with slug '${slug}' already exists in this tenant`);

export async function createBrand(ctx: ServiceContext, input: CreateBrandInput) {
  const now = nowIso();
  const row = {
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
    ...input,
    id: newId(),
    tenantId: ctx.tenantId,
    slug: input.slug ?? slugify(input.name),
    isActive: true,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await commit(ctx, [
      ctx.db.insert(brands).values(row),
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "brand.created",
        resourceType: "brand",
        resourceId: row.id,
        nextState: row,
      }),
    ]);
  } catch (e) {
    if (isUniqueViolation(e)) throw slugTaken(row.slug);
    throw e;
  }
  return toBrand(row);
}

export async function updateBrand(ctx: ServiceContext, id: string, patch: UpdateBrandInput) {
  const before = await findBrandRow(ctx, id);
  const after = { ...before, ...patch, updatedAt: nowIso() };
  try {
    await commit(ctx, [
      ctx.db
        .update(brands)
        .set({ ...patch, updatedAt: after.updatedAt })
        .where(and(eq(brands.id, id), eq(brands.tenantId, ctx.tenantId))),
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "brand.updated",
        resourceType: "brand",
        resourceId: id,
        previousState: before,
        nextState: after,
      }),
    ]);
  } catch (e) {
    if (isUniqueViolation(e)) throw slugTaken(after.slug);
    throw e;
  }
  return toBrand(after);
}
