import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { apiKeys } from "../../db/schema";
import { sha256Hex } from "../../lib/crypto";
import { nowIso } from "../../lib/time";
import { TtlCache } from "../../lib/ttl-cache";
import type { Authenticator } from "../../middleware/auth";
import type { ApiKeyPrincipal } from "../identity/access";

/** Every key starts with this, so the authenticator can tell keys from JWTs by shape. */
export const API_KEY_PREFIX = "rk_live_";

/**
 * A resolved key is cached in the isolate for at most CACHE_TTL_MS, which bounds how long a revoked
 * key keeps working in another isolate (the spec allows 60 s). Revoking evicts this isolate's entry.
 */
const CACHE_TTL_MS = 30_000;
/** lastUsedAt is written at most once per this interval per key. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** Bounds the isolate's memory; the oldest entry goes first. */
const CACHE_MAX_ENTRIES = 1_000;

interface Cached {
  row: typeof apiKeys.$inferSelect;
}
const cache = new TtlCache<Cached>(CACHE_TTL_MS, CACHE_MAX_ENTRIES);

export const forgetApiKey = (keyHash: string) => cache.delete(keyHash);

/** Known keys only are cached, so random guesses cannot fill the cache. */
async function lookup(db: ControlDb, keyHash: string, now: number): Promise<Cached | null> {
  const hit = cache.get(keyHash, now);
  if (hit) return hit;
  const row = await db.select().from(apiKeys).where(eq(apiKeys.keyHash, keyHash)).get();
  if (!row) return null;
  const entry = { row };
  cache.set(keyHash, entry, now);
  return entry;
}

/** One conditional write per minute at most: skipped while the known value is fresh, guarded in SQL across isolates. */
async function touch(db: ControlDb, entry: Cached, now: number) {
  const row = entry.row;
  if (row.lastUsedAt && now - Date.parse(row.lastUsedAt) < LAST_USED_RESOLUTION_MS) return;
  const stamp = nowIso(new Date(now));
  const staleBefore = nowIso(new Date(now - LAST_USED_RESOLUTION_MS));
  await db
    .update(apiKeys)
    .set({ lastUsedAt: stamp })
    .where(and(eq(apiKeys.id, row.id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, staleBefore))));
  entry.row = { ...row, lastUsedAt: stamp };
}

export const apiKeyAuthenticator: Authenticator = {
  name: "api-key",
  claims: (token) => token.startsWith(API_KEY_PREFIX),
  async authenticate(token, _env, db) {
    const now = Date.now();
    const entry = await lookup(db, await sha256Hex(token), now);
    if (!entry) return null;
    const row = entry.row;
    if (row.revokedAt || (row.expiresAt && Date.parse(row.expiresAt) <= now)) return null;
    await touch(db, entry, now);
    const principal: ApiKeyPrincipal = { kind: "api_key", keyId: row.id, tenantId: row.tenantId, scopes: row.scopes };
    return { principal };
  },
};
