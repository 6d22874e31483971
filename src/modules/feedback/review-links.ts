/** The review-site ids and URLs of a location or brand. */
export interface ReviewSiteRefs {
  googlePlaceId: string | null;
  googleMyBusinessUrl: string | null;
  yelpBusinessId: string | null;
  yelpUrl: string | null;
  facebookPageId: string | null;
  facebookUrl: string | null;
}

export interface ReviewLink {
  site: "google" | "yelp" | "facebook";
  label: string;
  url: string;
}

const enc = encodeURIComponent;

function linkFor(site: ReviewLink["site"], r: ReviewSiteRefs): string | null {
  switch (site) {
    case "google":
      return r.googlePlaceId
        ? `https://search.google.com/local/writereview?placeid=${enc(r.googlePlaceId)}`
        : r.googleMyBusinessUrl;
    case "yelp":
      return r.yelpBusinessId ? `https://www.yelp.com/writeareview/biz/${enc(r.yelpBusinessId)}` : r.yelpUrl;
    case "facebook":
      return r.facebookPageId ? `https://www.facebook.com/${enc(r.facebookPageId)}/reviews` : r.facebookUrl;
  }
}

const LABELS: Record<ReviewLink["site"], string> = { google: "Google", yelp: "Yelp", facebook: "Facebook" };

/**
 * Where a customer can write a public review: each site's write-review link from the location's
 * ids, else the brand's (Google and Facebook; never Yelp, which forbids asking for reviews). Shown to every respondent whatever their rating (no review gating).
 */
export function publicReviewLinks(location: ReviewSiteRefs, brand: ReviewSiteRefs | null): ReviewLink[] {
  // never Yelp: it forbids asking for reviews (src/lib/review-solicitation.ts)
  return (["google", "facebook"] as const).flatMap((site) => {
    const url = linkFor(site, location) ?? (brand ? linkFor(site, brand) : null);
    return url ? [{ site, label: LABELS[site], url }] : [];
  });
}
