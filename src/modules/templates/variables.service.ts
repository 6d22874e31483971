import { and, eq } from "drizzle-orm";
import { locationVariables } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { chunkRows } from "../../lib/sql";
import { nowIso } from "../../lib/time";
import { requireLocation } from "../locations/refs";
import type { PutLocationVariablesInput } from "./variables.schemas";

/** The custom variables of one location as a key -> value map (no existence check). */
export async function variablesOf(ctx: ServiceContext, locationId: string): Promise<Record<string, string>> {
  const rows = await ctx.db
    .select({ key: locationVariables.key, value: locationVariables.value })
    .from(locationVariables)
    .where(and(eq(locationVariables.tenantId, ctx.tenantId), eq(locationVariables.locationId, locationId)))
    .orderBy(locationVariables.key);
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

/** Every custom variable key defined at any location of the tenant: the tenant's custom tokens. */
export async function customTokenKeys(ctx: ServiceContext): Promise<string[]> {
  const rows = await ctx.db
    .selectDistinct({ key: locationVariables.key })
    .from(locationVariables)
    .where(eq(locationVariables.tenantId, ctx.tenantId));
  return rows.map((r) => r.key);
}

export async function getLocationVariables(ctx: ServiceContext, locationId: string) {
  await requireLocation(ctx, locationId);
  return { locationId, variables: await variablesOf(ctx, locationId) };
}

/** Replaces the location's whole set of variables. */
export async function putLocationVariables(ctx: ServiceContext, locationId: string, input: PutLocationVariablesInput) {
  await requireLocation(ctx, locationId);
  const before = await variablesOf(ctx, locationId);
  const now = nowIso();
  const rows = Object.entries(input.variables).map(([key, value]) => ({
    tenantId: ctx.tenantId,
    locationId,
    key,
    value,
    updatedAt: now,
  }));
  const inserts = chunkRows(locationVariables, rows).map((chunk) => ctx.db.insert(locationVariables).values(chunk));
  await commit(ctx, [
    ctx.db
      .delete(locationVariables)
      .where(and(eq(locationVariables.tenantId, ctx.tenantId), eq(locationVariables.locationId, locationId))),
    ...inserts,
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "location.variables_replaced",
      resourceType: "location",
      resourceId: locationId,
      previousState: before,
      nextState: input.variables,
    }),
  ]);
  return {
    locationId,
    variables: Object.fromEntries(Object.entries(input.variables).sort(([a], [b]) => (a < b ? -1 : 1))),
  };
}
