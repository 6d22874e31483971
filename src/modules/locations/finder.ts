import { and, asc, between, eq, inArray, or, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { brands, locations } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { validationError } from "../../lib/errors";
import { toLocation } from "./schemas";

export interface FinderQuery {
  lat?: number;
  lng?: number;
  radiusKm?: number;
  query?: string;
  limit: number;
}

const EARTH_RADIUS_KM = 6371.0088;
/** candidates read from the bounding box before exact distances are computed */
const MAX_CANDIDATES = 2000;

const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance in km. */
export function haversineKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = rad(lat2 - lat1);
  const dLng = rad(lng2 - lng1);
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

/**
 * The lat/lng box that contains every point within radiusKm of the centre; longitude ranges that
 * cross the antimeridian are split in two, and a box reaching a pole spans every longitude.
 */
export function boundingBox(lat: number, lng: number, radiusKm: number) {
  const dLat = (radiusKm / EARTH_RADIUS_KM) * (180 / Math.PI);
  const minLat = Math.max(-90, lat - dLat);
  const maxLat = Math.min(90, lat + dLat);
  if (minLat === -90 || maxLat === 90) return { minLat, maxLat, lngRanges: [[-180, 180]] as [number, number][] };
  const dLng = Math.asin(Math.min(1, Math.sin(radiusKm / EARTH_RADIUS_KM) / Math.cos(rad(lat)))) * (180 / Math.PI);
  const lo = lng - dLng;
  const hi = lng + dLng;
  const lngRanges: [number, number][] =
    lo < -180
      ? [
          [lo + 360, 180],
          [-180, hi],
        ]
      : hi > 180
        ? [
            [lo, 180],
            [-180, hi - 360],
          ]
        : [[lo, hi]];
  return { minLat, maxLat, lngRanges };
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (ch) => `\\${ch}`);

function textMatch(query: string): SQL {
  const pattern = `%${escapeLike(query.trim().toLowerCase())}%`;
  const col = (c: SQLiteColumn) => sql`lower(${c}) like ${pattern} escape '\\'`;
  return or(
    col(locations.name),
    col(locations.city),
    col(locations.state),
    col(locations.postalCode),
    col(locations.addressLine1),
  )!;
}

/**
 * Active locations of the tenant near a point (haversine distance inside an indexed bounding box
 * on (tenant_id, latitude, longitude)), matching a text query, or both. Nearest first when a point
 * is given, else by name.
 */
export async function findLocations(ctx: ServiceContext, q: FinderQuery) {
  const hasPoint = q.lat !== undefined && q.lng !== undefined;
  if ((q.lat === undefined) !== (q.lng === undefined)) {
    throw validationError([{ path: q.lat === undefined ? "lat" : "lng", message: "lat and lng go together" }]);
  }
  if (!hasPoint && !q.query?.trim())
    throw validationError([{ path: "query", message: "Give lat and lng, a query, or both" }]);
  const base = and(
    eq(locations.tenantId, ctx.tenantId),
    eq(locations.isActive, true),
    q.query?.trim() ? textMatch(q.query) : undefined,
  );

  let ranked: { id: string; distanceKm: number | null }[];
  if (hasPoint) {
    const radiusKm = q.radiusKm ?? 50;
    const box = boundingBox(q.lat!, q.lng!, radiusKm);
    const candidates = await ctx.db
      .select({ id: locations.id, latitude: locations.latitude, longitude: locations.longitude })
      .from(locations)
      .where(
        and(
          base,
          between(locations.latitude, box.minLat, box.maxLat),
          or(...box.lngRanges.map(([lo, hi]) => between(locations.longitude, lo, hi))),
        ),
      )
      .limit(MAX_CANDIDATES);
    ranked = candidates
      .map((r) => ({ id: r.id, distanceKm: haversineKm(q.lat!, q.lng!, r.latitude!, r.longitude!) }))
      .filter((r) => r.distanceKm <= radiusKm)
      .sort((a, b) => a.distanceKm - b.distanceKm || a.id.localeCompare(b.id))
      .slice(0, q.limit);
  } else {
    const rows = await ctx.db
      .select({ id: locations.id })
      .from(locations)
      .where(base)
      .orderBy(asc(locations.name), asc(locations.id))
      .limit(q.limit);
    ranked = rows.map((r) => ({ id: r.id, distanceKm: null }));
  }
  if (ranked.length === 0) return { data: [], total: 0 };

  const rows = await ctx.db
    .select({ location: locations, brandName: sql<string | null>`${brands.name}`.as("brand_name") })
    .from(locations)
    .leftJoin(brands, eq(brands.id, locations.brandId))
    .where(
      and(
        eq(locations.tenantId, ctx.tenantId),
        inArray(
          locations.id,
          ranked.map((r) => r.id),
        ),
      ),
    );
  const byId = new Map(rows.map((r) => [r.location.id, r]));
  const data = ranked.flatMap(({ id, distanceKm }) => {
    const r = byId.get(id);
    if (!r) return [];
    const brand = r.brandName === null ? null : { id: r.location.brandId, name: r.brandName };
    return [
      { ...toLocation(r.location, brand), distanceKm: distanceKm === null ? null : Math.round(distanceKm * 100) / 100 },
    ];
  });
  return { data, total: data.length };
}
