import { controlDb, findOnShards } from "../../db/shards";
import type { Env } from "../../env";
import { TtlCache } from "../../lib/ttl-cache";
import { loadOwnedWidget, type OwnedWidget } from "./data";
import { widgetPage, widgetScript } from "./render";

/** A widget with its three public bodies rendered once, so a cache hit only wraps a string in a Response. */
export interface RenderedWidget extends OwnedWidget {
  json: string;
  script: string;
  page: string;
}

/**
 * Three tiers, as the short links' location data (docs/widgets.md): an isolate map (ISOLATE_TTL_MS),
 * then the data centre's Cache API (`caches.default`, EDGE_TTL_S), then D1, which fills both.
 * A missing or deactivated widget is cached too (null). New and changed reviews purge both tiers
 * (jobs.ts); the TTLs bound what a purge cannot reach (other isolates, other data centres).
 */
export const ISOLATE_TTL_MS = 30_000;
export const EDGE_TTL_S = 300;
const isolate = new TtlCache<RenderedWidget | null>(ISOLATE_TTL_MS, 5_000);

const edge = () => (typeof caches === "undefined" ? null : (caches as unknown as { default: Cache }).default);
// v2: the edge copy holds the owning tenant too (v1 entries, without it, are never read again)
const edgeKey = (publicBaseUrl: string, key: string) =>
  `${publicBaseUrl.replace(/\/+$/, "")}/__widget-cache/v2/${encodeURIComponent(key)}`;

const render = (w: OwnedWidget | null): RenderedWidget | null =>
  w && { ...w, json: JSON.stringify(w.data), script: widgetScript(w.data), page: widgetPage(w.data) };

export function cachedWidget(
  o: { env: Env; publicBaseUrl: string; defer: (p: Promise<unknown>) => void },
  key: string,
): RenderedWidget | null | Promise<RenderedWidget | null> {
  const hit = isolate.get(key);
  if (hit !== undefined) return hit;
  return isolate.load(key, async () => {
    const url = edgeKey(o.publicBaseUrl, key);
    const cache = edge();
    const stored = await cache?.match(url).catch(() => undefined);
    if (stored) return render((await stored.json()) as OwnedWidget | null);
    // the public key names no tenant: every shard is asked (white-label rows from the control plane)
    const data = await findOnShards(o.env, (db) => loadOwnedWidget(db, key, controlDb(o.env)));
    if (cache) {
      const res = new Response(JSON.stringify(data), {
        headers: { "content-type": "application/json", "cache-control": `max-age=${EDGE_TTL_S}` },
      });
      o.defer(cache.put(url, res).catch(() => undefined));
    }
    return render(data);
  });
}

/** Drops the widgets from this isolate and this data centre's cache; the next request reads D1. */
export async function purgeWidgets(publicBaseUrl: string, keys: string[]): Promise<void> {
  const cache = edge();
  for (const key of keys) isolate.delete(key);
  if (cache) await Promise.all(keys.map((key) => cache.delete(edgeKey(publicBaseUrl, key)).catch(() => false)));
}
