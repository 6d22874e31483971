import { and, count, eq } from "drizzle-orm";
import { widgets } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { nowIso } from "../../lib/time";
import { assertLocationRefs } from "../locations/refs";
import { purgeWidgets } from "./cache";
import { type CreateWidgetInput, toWidget, type UpdateWidgetInput, type WidgetRow } from "./schemas";

const inTenant = (ctx: ServiceContext, id: string) => and(eq(widgets.id, id), eq(widgets.tenantId, ctx.tenantId));
const dto = (ctx: ServiceContext, w: WidgetRow) => toWidget(w, ctx.env.PUBLIC_BASE_URL);
/** A changed widget is dropped from the caches this request can reach; elsewhere the TTLs apply. */
const purge = (ctx: ServiceContext, key: string) => ctx.defer(purgeWidgets(ctx.env.PUBLIC_BASE_URL, [key]));

export async function listWidgets(ctx: ServiceContext, q: PageQuery & { locationId?: string }) {
  const where = and(
    eq(widgets.tenantId, ctx.tenantId),
    q.locationId ? eq(widgets.locationId, q.locationId) : undefined,
  );
  return keysetPage(ctx.db, {
    query: q,
    sort: [widgets.createdAt, widgets.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(widgets)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(widgets).where(where),
    key: (w) => [w.createdAt, w.id],
    map: (w) => dto(ctx, w),
  });
}

async function findRow(ctx: ServiceContext, id: string): Promise<WidgetRow> {
  const row = await ctx.db.select().from(widgets).where(inTenant(ctx, id)).get();
  if (!row) throw notFound("Widget");
  return row;
}

export const getWidget = async (ctx: ServiceContext, id: string) => dto(ctx, await findRow(ctx, id));

export async function createWidget(ctx: ServiceContext, input: CreateWidgetInput) {
  await assertLocationRefs(ctx, [input.locationId]);
  const now = nowIso();
  const row: WidgetRow = {
    id: newId(),
    tenantId: ctx.tenantId,
    locationId: input.locationId ?? null,
    publicKey: newId().slice(0, 16),
    name: input.name,
    minRating: input.minRating ?? 1,
    sites: input.sites ?? [],
    count: input.count ?? 5,
    order: input.order ?? "newest",
    isActive: true,
    createdAt: now,
    updatedAt: now,
  };
  await commit(ctx, [
    ctx.db.insert(widgets).values(row),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "widget.created",
      resourceType: "widget",
      resourceId: row.id,
      nextState: row,
    }),
  ]);
  return dto(ctx, row);
}

export async function updateWidget(ctx: ServiceContext, id: string, patch: UpdateWidgetInput) {
  const before = await findRow(ctx, id);
  await assertLocationRefs(ctx, [patch.locationId]);
  const after: WidgetRow = { ...before, ...patch, updatedAt: nowIso() };
  await commit(ctx, [
    ctx.db
      .update(widgets)
      .set({ ...patch, updatedAt: after.updatedAt })
      .where(inTenant(ctx, id)),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "widget.updated",
      resourceType: "widget",
      resourceId: id,
      previousState: before,
      nextState: after,
    }),
  ]);
  purge(ctx, before.publicKey);
  return dto(ctx, after);
}

export async function deleteWidget(ctx: ServiceContext, id: string) {
  const before = await findRow(ctx, id);
  await commit(ctx, [
    ctx.db.delete(widgets).where(inTenant(ctx, id)),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "widget.deleted",
      resourceType: "widget",
      resourceId: id,
      previousState: before,
    }),
  ]);
  purge(ctx, before.publicKey);
}
