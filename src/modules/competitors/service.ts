import { and, count, eq } from "drizzle-orm";
import { competitors } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { nowIso } from "../../lib/time";
import { assertLocationRefs } from "../locations/refs";
import { type CompetitorRow, type CreateCompetitorInput, toCompetitor, type UpdateCompetitorInput } from "./schemas";

export async function findCompetitorRow(ctx: ServiceContext, id: string): Promise<CompetitorRow> {
  const row = await ctx.db
    .select()
    .from(competitors)
    .where(and(eq(competitors.id, id), eq(competitors.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Competitor");
  return row;
}

export const getCompetitor = async (ctx: ServiceContext, id: string) => toCompetitor(await findCompetitorRow(ctx, id));

export async function listCompetitors(ctx: ServiceContext, q: PageQuery & { locationId?: string }) {
  const where = and(
    eq(competitors.tenantId, ctx.tenantId),
    q.locationId ? eq(competitors.locationId, q.locationId) : undefined,
  );
  return keysetPage(ctx.db, {
    query: q,
    sort: [competitors.createdAt, competitors.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(competitors)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(competitors).where(where),
    key: (c) => [c.createdAt, c.id],
    map: toCompetitor,
  });
}

/** For the MCP skill competitor.list: tracked competitors with average rating and review count. */
export async function listCompetitorsForSkill(ctx: ServiceContext, input: { locationId?: string; limit?: number }) {
  const page = await listCompetitors(ctx, {
    locationId: input.locationId,
    limit: Math.min(200, Math.max(1, input.limit ?? 50)),
  });
  return page.data.map((c) => ({
    id: c.id,
    locationId: c.locationId,
    name: c.name,
    averageRating: c.averageRating,
    reviewCount: c.reviewCount,
    bySite: c.bySite,
    siteIds: {
      googlePlaceId: c.googlePlaceId,
      yelpBusinessId: c.yelpBusinessId,
      facebookPageId: c.facebookPageId,
      tripadvisorId: c.tripadvisorId,
      trustpilotBusinessUnitId: c.trustpilotBusinessUnitId,
    },
    lastRefreshedAt: c.lastRefreshedAt,
  }));
}

export async function createCompetitor(ctx: ServiceContext, input: CreateCompetitorInput) {
  await assertLocationRefs(ctx, [input.locationId]);
  const now = nowIso();
  const row: CompetitorRow = {
    websiteUrl: null,
    googlePlaceId: null,
    yelpBusinessId: null,
    facebookPageId: null,
    tripadvisorId: null,
    trustpilotBusinessUnitId: null,
    ...input,
    id: newId(),
    tenantId: ctx.tenantId,
    averageRating: null,
    reviewCount: null,
    bySite: {},
    lastRefreshedAt: null,
    lastRefreshStatus: null,
    lastRefreshError: null,
    createdAt: now,
    updatedAt: now,
  };
  await commit(ctx, [
    ctx.db.insert(competitors).values(row),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "competitor.created",
      resourceType: "competitor",
      resourceId: row.id,
      nextState: row,
    }),
  ]);
  return toCompetitor(row);
}

export async function updateCompetitor(ctx: ServiceContext, id: string, patch: UpdateCompetitorInput) {
  const before = await findCompetitorRow(ctx, id);
  await assertLocationRefs(ctx, [patch.locationId]);
  const after: CompetitorRow = { ...before, ...patch, updatedAt: nowIso() };
  await commit(ctx, [
    ctx.db
      .update(competitors)
      .set({ ...patch, updatedAt: after.updatedAt })
      .where(and(eq(competitors.id, id), eq(competitors.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "competitor.updated",
      resourceType: "competitor",
      resourceId: id,
      previousState: before,
      nextState: after,
    }),
  ]);
  return toCompetitor(after);
}

export async function deleteCompetitor(ctx: ServiceContext, id: string) {
  const before = await findCompetitorRow(ctx, id);
  await commit(ctx, [
    ctx.db.delete(competitors).where(and(eq(competitors.id, id), eq(competitors.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "competitor.deleted",
      resourceType: "competitor",
      resourceId: id,
      previousState: before,
    }),
  ]);
}
