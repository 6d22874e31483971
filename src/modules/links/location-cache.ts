import { and, eq, sql } from "drizzle-orm";
import type { ShardDb } from "../../db/client";
import { brands, locations, solicitations } from "../../db/schema";
import { TtlCache } from "../../lib/ttl-cache";
import type { LocationLinkData } from "./destinations";

/**
 * Three tiers for the per-location data a redirect needs, so the hot path never waits on D1:
 * an isolate Map (ISOLATE_TTL_MS), then the Cache API (CACHE_TTL_S, per data centre), then one D1
 * read that fills both. A location edit shows in links within CACHE_TTL_S + ISOLATE_TTL_MS.
 * A missing location is cached too (as null), so a flood of dead links stays off D1.
 */
export const ISOLATE_TTL_MS = 60_000;
export const CACHE_TTL_S = 300;
const MAX_ENTRIES = 10_000;

const locationsCache = new TtlCache<LocationLinkData | null>(ISOLATE_TTL_MS, MAX_ENTRIES);
const customUrls = new TtlCache<string | null>(ISOLATE_TTL_MS, MAX_ENTRIES);

/** Tests change a location and read it back at once; production waits out the TTLs. */
export const clearIsolateLinkCaches = () => {
  locationsCache.clear();
  customUrls.clear();
};

export async function loadLocationLinkData(
  db: ShardDb,
  tenantId: string,
  locationId: string,
): Promise<LocationLinkData | null> {
  const row = await db
    .select({
      isActive: locations.isActive,
      name: locations.name,
      googlePlaceId: sql<string | null>`coalesce(${locations.googlePlaceId}, ${brands.googlePlaceId})`.as("g_place"),
      googleMyBusinessUrl: sql<
        string | null
      >`coalesce(${locations.googleMyBusinessUrl}, ${brands.googleMyBusinessUrl})`.as("g_url"),
      yelpUrl: sql<string | null>`coalesce(${locations.yelpUrl}, ${brands.yelpUrl})`.as("y_url"),
      yelpBusinessId: sql<string | null>`coalesce(${locations.yelpBusinessId}, ${brands.yelpBusinessId})`.as("y_id"),
      facebookUrl: sql<string | null>`coalesce(${locations.facebookUrl}, ${brands.facebookUrl})`.as("f_url"),
      facebookPageId: sql<string | null>`coalesce(${locations.facebookPageId}, ${brands.facebookPageId})`.as("f_id"),
      brandName: sql<string | null>`${brands.name}`.as("brand_name"),
      brandLogoUrl: sql<string | null>`${brands.logoUrl}`.as("brand_logo"),
    })
    .from(locations)
    .leftJoin(brands, eq(brands.id, locations.brandId))
    .where(and(eq(locations.id, locationId), eq(locations.tenantId, tenantId)))
    .get();
  if (!row) return null;
  const { brandName, brandLogoUrl, ...rest } = row;
  return { ...rest, tenantId, locationId, brand: { name: brandName ?? row.name, logoUrl: brandLogoUrl } };
}

const cacheKey = (publicBaseUrl: string, tenantId: string, locationId: string) =>
  `${publicBaseUrl.replace(/\/+$/, "")}/__link-cache/location/${encodeURIComponent(tenantId)}/${encodeURIComponent(locationId)}`;

/** The location's link data through the three tiers; null when it does not exist in that tenant. */
export function locationLinkData(
  o: { db: ShardDb; publicBaseUrl: string; defer: (p: Promise<unknown>) => void },
  tenantId: string,
  locationId: string,
): LocationLinkData | null | Promise<LocationLinkData | null> {
  const key = `${tenantId}/${locationId}`;
  const hit = locationsCache.get(key);
  if (hit !== undefined) return hit;
  return locationsCache.load(key, async () => {
    const url = cacheKey(o.publicBaseUrl, tenantId, locationId);
    const cache = await caches.open("links");
    const cached = await cache.match(url);
    if (cached) return (await cached.json()) as LocationLinkData | null;
    const fresh = await loadLocationLinkData(o.db, tenantId, locationId);
    const body = JSON.stringify(fresh);
    o.defer(
      cache.put(
        url,
        new Response(body, {
          headers: { "content-type": "application/json", "cache-control": `max-age=${CACHE_TTL_S}` },
        }),
      ),
    );
    return fresh;
  });
}

/** The destinationUrl of a solicitation minted with the "custom" destination (one D1 read per miss). */
export function customDestinationUrl(
  db: ShardDb,
  tenantId: string,
  solicitationId: string,
): string | null | Promise<string | null> {
  const hit = customUrls.get(solicitationId);
  if (hit !== undefined) return hit;
  return customUrls.load(
    solicitationId,
    async () =>
      (
        await db
          .select({ url: solicitations.destinationUrl })
          .from(solicitations)
          .where(and(eq(solicitations.id, solicitationId), eq(solicitations.tenantId, tenantId)))
          .get()
      )?.url ?? null,
  );
}
