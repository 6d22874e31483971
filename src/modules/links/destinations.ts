/**
 * Where a short link goes, computed from what the token carries (the destination kind) and the
 * location's public review profile. Pure: the hot path calls it on every redirect.
 */

/** A location's public profile as the redirect needs it (location values, else its brand's). */
export interface LocationLinkData {
  tenantId: string;
  locationId: string;
  /** false: the location is deactivated; its links answer "no longer active" */
  isActive: boolean;
  name: string;
  brand: { name: string; logoUrl: string | null };
  googlePlaceId: string | null;
  googleMyBusinessUrl: string | null;
  yelpUrl: string | null;
  yelpBusinessId: string | null;
  facebookUrl: string | null;
  facebookPageId: string | null;
}

export type ReviewSite = "google" | "yelp" | "facebook";
export type DestinationKind = "google" | "yelp" | "facebook" | "survey" | "feedback" | "kiosk" | "auto" | "custom";
const KINDS = new Set<string>(["google", "yelp", "facebook", "survey", "feedback", "kiosk", "auto", "custom"]);

export const asDestinationKind = (value: string): DestinationKind =>
  KINDS.has(value) ? (value as DestinationKind) : "auto";

const baseOf = (publicBaseUrl: string) => publicBaseUrl.replace(/\/+$/, "");

/** The hosted feedback page: offers every public review link whatever the rating (never gates). */
export const feedbackPageUrl = (publicBaseUrl: string, token: string) =>
  `${baseOf(publicBaseUrl)}/f/${encodeURIComponent(token)}`;

/** The public review pages this location has, by site. */
export function reviewLinks(l: LocationLinkData): Partial<Record<ReviewSite, string>> {
  const links: Partial<Record<ReviewSite, string>> = {};
  if (l.googlePlaceId)
    links.google = `https://search.google.com/local/writereview?placeid=${encodeURIComponent(l.googlePlaceId)}`;
  else if (l.googleMyBusinessUrl) links.google = l.googleMyBusinessUrl;
  if (l.yelpUrl) links.yelp = l.yelpUrl;
  else if (l.yelpBusinessId) links.yelp = `https://www.yelp.com/biz/${encodeURIComponent(l.yelpBusinessId)}`;
  if (l.facebookUrl) links.facebook = l.facebookUrl;
  else if (l.facebookPageId)
    links.facebook = `https://www.facebook.com/${encodeURIComponent(l.facebookPageId)}/reviews`;
  return links;
}

export interface ResolvedDestination {
  /** the kind the link was minted with */
  kind: DestinationKind;
  /** what it resolved to: a review site, or "feedback" (the hosted page), or "custom" */
  resolved: ReviewSite | "feedback" | "custom";
  url: string;
}

/**
 * google/facebook: that site's page, or the feedback page when the location has none. yelp: the
 * feedback page (Yelp forbids asking for reviews).
 * survey/feedback/kiosk: the hosted feedback page (a kiosk shows the same page on a shared device).
 * auto: google with a place id, else the feedback page. custom: the solicitation's destinationUrl
 * (passed in), else as auto.
 */
export function resolveDestination(
  kind: DestinationKind,
  l: LocationLinkData,
  o: { publicBaseUrl: string; token: string; customUrl?: string | null },
): ResolvedDestination {
  const feedback = (): ResolvedDestination => ({
    kind,
    resolved: "feedback",
    url: feedbackPageUrl(o.publicBaseUrl, o.token),
  });
  const links = reviewLinks(l);
  switch (kind) {
    case "yelp":
      // Yelp forbids asking for reviews (src/lib/review-solicitation.ts): a link minted for it opens the feedback page
      return feedback();
    case "google":
    case "facebook": {
      const url = links[kind];
      return url ? { kind, resolved: kind, url } : feedback();
    }
    case "survey":
    case "feedback":
    case "kiosk":
      return feedback();
    case "custom":
    case "auto":
      // a custom link without its URL (the solicitation is gone) behaves as auto
      if (kind === "custom" && o.customUrl) return { kind, resolved: "custom", url: o.customUrl };
      return l.googlePlaceId ? { kind, resolved: "google", url: links.google! } : feedback();
  }
}
