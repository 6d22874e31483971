import { eq } from "drizzle-orm";
import { reviewLinks, type SiteWeights } from "../../db/schema";
import { findOnShards } from "../../db/shards";
import type { Env } from "../../env";
import { TtlCache } from "../../lib/ttl-cache";

/** What an open of `/l/{slug}` needs. */
export interface ReviewLinkTarget {
  id: string;
  tenantId: string;
  locationId: string;
  weights: SiteWeights;
  isActive: boolean;
}

/**
 * Per-isolate cache of review links by slug (60 s; misses cached as null, so a flood of unknown
 * slugs stays off D1). An edit shows at once in the isolate that made it, elsewhere within 60 s.
 */
const TTL_MS = 60_000;
const targets = new TtlCache<ReviewLinkTarget | null>(TTL_MS, 10_000);

export const forgetReviewLink = (slug: string) => targets.delete(slug);
export const clearReviewLinkCache = () => targets.clear();

/** By slug, which names no tenant: looked up on every shard (src/db/shards.ts), cached per isolate. */
export function reviewLinkTarget(env: Env, slug: string): ReviewLinkTarget | null | Promise<ReviewLinkTarget | null> {
  const hit = targets.get(slug);
  if (hit !== undefined) return hit;
  return targets.load(slug, () =>
    findOnShards(env, async (db) => {
      const row = await db
        .select({
          id: reviewLinks.id,
          tenantId: reviewLinks.tenantId,
          locationId: reviewLinks.locationId,
          weights: reviewLinks.weights,
          isActive: reviewLinks.isActive,
        })
        .from(reviewLinks)
        .where(eq(reviewLinks.slug, slug))
        .get();
      return row ?? null;
    }),
  );
}
