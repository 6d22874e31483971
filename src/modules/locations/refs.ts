import { and, eq } from "drizzle-orm";
import { locations } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { notFound, type ValidationIssue, validationError } from "../../lib/errors";
import { inJson } from "../../lib/sql";

/*
 * "A location a request names is the tenant's": the one definition (test/node/one-definition.test.ts).
 * A location referred to by a field (a body, a filter, a CSV column) that is not the tenant's is a 400
 * VALIDATION_ERROR "Unknown location" at that field; the location a route is about (a path id) is a 404.
 * Another tenant's id and an id that does not exist answer the same.
 */

/** The query of which of `ids` are the tenant's locations (with the timezone callers default to), for a caller's db.batch. */
export const tenantLocations = (ctx: Pick<ServiceContext, "db" | "tenantId">, ids: readonly string[]) =>
  ctx.db
    .select({ id: locations.id, timezone: locations.timezone })
    .from(locations)
    .where(and(eq(locations.tenantId, ctx.tenantId), inJson(locations.id, [...new Set(ids)])));

/** The issue for a referenced location that is not among the tenant's `found` ones, or none. */
export const unknownLocation = (
  id: string | null | undefined,
  found: readonly { id: string }[],
  path = "locationId",
): ValidationIssue[] => (id && !found.some((l) => l.id === id) ? [{ path, message: "Unknown location" }] : []);

/**
 * Every id (duplicates and empties ignored) is one of the tenant's locations, else 400 "Unknown location"
 * at `path`. Returns the locations found, by id.
 */
export async function assertLocationRefs(
  ctx: Pick<ServiceContext, "db" | "tenantId">,
  ids: readonly (string | null | undefined)[],
  path = "locationId",
): Promise<Map<string, { id: string; timezone: string }>> {
  const wanted = [...new Set(ids.filter((id): id is string => Boolean(id)))];
  if (!wanted.length) return new Map();
  const found = await tenantLocations(ctx, wanted);
  if (found.length !== wanted.length) throw validationError([{ path, message: "Unknown location" }]);
  return new Map(found.map((l) => [l.id, l]));
}

/** The location a route is about: the tenant's, else 404 Location. */
export async function requireLocation(ctx: Pick<ServiceContext, "db" | "tenantId">, id: string): Promise<void> {
  const [found] = await tenantLocations(ctx, [id]);
  if (!found) throw notFound("Location");
}
