/**
 * Two-level read-through cache for the public feedback pages: a Map in the isolate (no I/O at all),
 * then the Cache API of the colo, then the loader (D1). Entries live TTL_SECONDS in both, so an
 * edited location or survey shows within a minute. `null` results (unknown location) are cached too.
 */
export const TTL_SECONDS = 60;
const MAX_ENTRIES = 5000;
const CACHE_ORIGIN = "https://feedback-cache.internal";

interface Entry {
  value: unknown;
  expires: number;
}

const isolate = new Map<string, Entry>();

function remember(key: string, value: unknown, now: number) {
  // oldest first out: Map keeps insertion order
  if (isolate.size >= MAX_ENTRIES) isolate.delete(isolate.keys().next().value!);
  isolate.set(key, { value, expires: now + TTL_SECONDS * 1000 });
}

const edgeCache = () => (typeof caches === "undefined" ? null : (caches as unknown as { default: Cache }).default);

export async function cached<T>(key: string, load: () => Promise<T>, defer: (p: Promise<unknown>) => void): Promise<T> {
  const now = Date.now();
  const hit = isolate.get(key);
  if (hit && hit.expires > now) return hit.value as T;
  if (hit) isolate.delete(key);

  const url = `${CACHE_ORIGIN}/${key}`;
  const edge = edgeCache();
  const stored = await edge?.match(url).catch(() => undefined);
  if (stored) {
    const value = (await stored.json()) as T;
    remember(key, value, now);
    return value;
  }
  const value = await load();
  remember(key, value, now);
  if (edge) {
    const res = new Response(JSON.stringify(value), {
      headers: { "content-type": "application/json", "cache-control": `max-age=${TTL_SECONDS}` },
    });
    defer(edge.put(url, res).catch(() => undefined));
  }
  return value;
}
