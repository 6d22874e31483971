import type { ReviewLinkSite, SiteWeights } from "../../db/schema";

/**
 * Picks the review site for one open of a review link: a weighted draw over the sites the
 * location has a page on. Only the tenant's weights and a random number decide: nothing about the
 * customer (not their rating, not their feedback) is known here, so the chooser cannot gate.
 * A site the location has no page on gives its share to the others. Null: no site to send to.
 */
export function chooseSite(
  weights: SiteWeights,
  available: Partial<Record<ReviewLinkSite, string>>,
  random: number,
): ReviewLinkSite | null {
  // never Yelp (it forbids asking for reviews, src/lib/review-solicitation.ts), whatever an older link's weights say
  const candidates = (Object.entries(weights) as [ReviewLinkSite, number][]).filter(
    ([site, w]) => w > 0 && available[site] && site !== "yelp",
  );
  const total = candidates.reduce((sum, [, w]) => sum + w, 0);
  if (total === 0) return null;
  let point = random * total;
  for (const [site, w] of candidates) {
    if (point < w) return site;
    point -= w;
  }
  return candidates[candidates.length - 1]![0];
}

/** A uniform draw in [0, 1) from the CSPRNG. */
export const randomUnit = () => crypto.getRandomValues(new Uint32Array(1))[0]! / 2 ** 32;
