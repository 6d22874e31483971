import { TtlCache } from "../../lib/ttl-cache";

/**
 * Two-level read-through cache for the public feedback pages: a Map in the isolate (no I/O at all),
 * then the Cache API of the colo, then the loader (D1). Entries live TTL_SECONDS in both, so an
 * edited location or survey shows within a minute. `null` results (unknown location) are cached too.
 */
export const TTL_SECONDS = 60;
const MAX_ENTRIES = 5000;
const CACHE_ORIGIN = "https://feedback-cache.internal";

const isolate = new TtlCache<unknown>(TTL_SECONDS * 1000, MAX_ENTRIES);

const edgeCache = () => (typeof caches === "undefined" ? null : (caches as unknown as { default: Cache }).default);

export async function cached<T>(key: string, load: () => Promise<T>, defer: (p: Promise<unknown>) => void): Promise<T> {
  const hit = isolate.get(key);
  if (hit !== undefined) return hit as T;

  const url = `${CACHE_ORIGIN}/${key}`;
  const edge = edgeCache();
  const stored = await edge?.match(url).catch(() => undefined);
  if (stored) {
    const value = (await stored.json()) as T;
    isolate.set(key, value);
    return value;
  }
  const value = await load();
  isolate.set(key, value);
  if (edge) {
    const res = new Response(JSON.stringify(value), {
      headers: { "content-type": "application/json", "cache-control": `max-age=${TTL_SECONDS}` },
    });
    defer(edge.put(url, res).catch(() => undefined));
  }
  return value;
}
