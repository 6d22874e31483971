import { bearer, callSite, trimSlash, type BusinessSummary, type ExternalReview, type FetchFn, type ReviewPage, type ReviewSiteClient } from "./types";

export const YELP_FUSION_API = "https://api.yelp.com";
export const YELP_PARTNER_API = "https://partner-api.yelp.com";

interface YelpReview {
  id: string;
  url?: string;
  text?: string;
  rating?: number;
  time_created?: string;
  user?: { id?: string; name?: string };
}

export interface YelpConfig {
  businessId: string;
  /** Fusion API key (reads) */
  apiKey: string;
  /** business-user OAuth token for the partner Respond to Reviews API; replies only when set */
  partnerAccessToken?: string;
  baseUrl?: string;
  partnerBaseUrl?: string;
}

/**
 * Yelp Fusion reviews give at most 3 excerpts per business (no paging). Replies go through the
 * partner Respond to Reviews API, which Yelp enables per partner.
 */
export class YelpClient implements ReviewSiteClient {
  readonly site = "yelp";
  readonly reply?: (externalReviewId: string, text: string) => Promise<void>;

  constructor(
    private readonly cfg: YelpConfig,
    private readonly fetchFn: FetchFn,
  ) {
    if (cfg.partnerAccessToken) this.reply = (id, text) => this.respond(id, text, cfg.partnerAccessToken!);
  }

  async listReviews(): Promise<ReviewPage> {
    const url = `${trimSlash(this.cfg.baseUrl ?? YELP_FUSION_API)}/v3/businesses/${encodeURIComponent(this.cfg.businessId)}/reviews?limit=3&sort_by=newest`;
    const body = await callSite<{ reviews?: YelpReview[] }>(this.site, this.fetchFn, url, { method: "GET", headers: bearer(this.cfg.apiKey) });
    return { reviews: (body?.reviews ?? []).map(toReview), nextCursor: null };
  }

  /** Fusion GET /v3/businesses/{id}: rating (0.5 steps) and review_count of any business. */
  async businessSummary(businessId: string): Promise<BusinessSummary> {
    const url = `${trimSlash(this.cfg.baseUrl ?? YELP_FUSION_API)}/v3/businesses/${encodeURIComponent(businessId)}`;
    const b = await callSite<{ id?: string; name?: string; rating?: number; review_count?: number }>(this.site, this.fetchFn, url, { method: "GET", headers: bearer(this.cfg.apiKey) });
    return { businessId: b?.id ?? businessId, name: b?.name ?? null, rating: b?.rating ?? null, reviewCount: b?.review_count ?? null };
  }

  private async respond(externalReviewId: string, text: string, token: string) {
    await callSite(this.site, this.fetchFn, `${trimSlash(this.cfg.partnerBaseUrl ?? YELP_PARTNER_API)}/reviews/v1/${encodeURIComponent(externalReviewId)}`, {
      method: "POST",
      headers: { ...bearer(token), "content-type": "application/json" },
      body: JSON.stringify({ response_text: text, response_type: "public_comment" }),
    });
  }

  replyUrl(review: { url: string | null }) {
    return review.url ?? `https://biz.yelp.com/`;
  }
}

/** Yelp's time_created is "YYYY-MM-DD HH:MM:SS" without a zone; it is read as UTC. */
const yelpTime = (s?: string) => (s ? new Date(`${s.replace(" ", "T")}Z`).toISOString() : null);

function toReview(r: YelpReview): ExternalReview {
  const at = yelpTime(r.time_created);
  return {
    externalReviewId: r.id,
    rating: r.rating ?? null,
    ratingMax: 5,
    text: r.text ?? null,
    authorName: r.user?.name ?? null,
    authorExternalId: r.user?.id ?? null,
    language: null,
    publishedAt: at,
    updatedAt: at,
    url: r.url ?? null,
    replyText: null,
  };
}
