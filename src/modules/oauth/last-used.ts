import type { Env } from "../../env";
import { log } from "../../lib/log";
import { TtlCache } from "../../lib/ttl-cache";
import { REFRESH_TOKEN_TTL } from "./provider";

/**
 * "Last used" of a connected app (docs/SECURITY.md, Connected apps). The OAuth library records no
 * use of a grant, so /mcp records it here when it verifies an OAuth access token: at most once per
 * grant per isolate per RECORD_EVERY_MS (a per-isolate memory of the last write), as one KV write
 * in the provider's own namespace, under a prefix the library never lists. The hot path never
 * writes D1, and almost never KV: the value is accurate to RECORD_EVERY_MS (5 minutes).
 */
export const RECORD_EVERY_MS = 5 * 60_000;

const PREFIX = "app-usage:";
const keyOf = (userId: string, grantId: string) => `${PREFIX}${userId}:${grantId}`;

/** grants this isolate wrote recently; grant ids are random, so entries of another test file never collide */
const recent = new TtlCache<true>(RECORD_EVERY_MS, 10_000);

interface UsageMetadata {
  /** unix seconds of the use */
  at: number;
}

/**
 * Provider tokens are `userId:grantId:secret` (provider.ts, looksLikeOAuthToken); the library keeps a
 * token under its user and grant, so once it validated a token these parts are the token's own.
 */
export const grantOfToken = (token: string) => {
  const [userId, grantId] = token.split(":");
  return userId && grantId ? { userId, grantId } : null;
};

/** Records that a verified access token was used, unless this isolate did so for its grant recently. */
export async function recordGrantUse(env: Env, token: string, now = Date.now()): Promise<void> {
  const grant = grantOfToken(token);
  if (!grant) return;
  const key = keyOf(grant.userId, grant.grantId);
  if (recent.get(key, now)) return;
  recent.set(key, true, now);
  const metadata: UsageMetadata = { at: Math.floor(now / 1000) };
  try {
    // outlives the grant's refresh token, so an idle grant still shows when it was last used
    await env.OAUTH_KV.put(key, "", { metadata, expirationTtl: REFRESH_TOKEN_TTL + 86_400 });
  } catch (err) {
    // a missed record only makes "last used" older; the call itself goes on
    log.warn("oauth grant use not recorded", { error: String(err) });
  }
}

/** Unix seconds of the last recorded use of each of a user's grants: one KV list, metadata included. */
export async function lastUsedByGrant(env: Env, userId: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const prefix = keyOf(userId, "");
  let cursor: string | undefined;
  do {
    const page = await env.OAUTH_KV.list<UsageMetadata>({ prefix, cursor });
    for (const k of page.keys) if (k.metadata?.at) out.set(k.name.slice(prefix.length), k.metadata.at);
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
  return out;
}

/** Forgets a revoked grant's usage record. */
export const forgetGrantUse = (env: Env, userId: string, grantId: string) =>
  env.OAUTH_KV.delete(keyOf(userId, grantId));
