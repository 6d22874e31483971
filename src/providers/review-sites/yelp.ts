import {
  type BusinessSummary,
  bearer,
  callSite,
  type ExternalReview,
  type FetchFn,
  type ReviewPage,
  type ReviewSiteClient,
  ReviewSiteError,
  trimSlash,
} from "./types";

export const YELP_FUSION_API = "https://api.yelp.com";
export const YELP_PARTNER_API = "https://partner-api.yelp.com";

/**
 * Yelp's Respond to Reviews rules (https://docs.developer.yelp.com/docs/respond-to-reviews-api-v2,
 * https://docs.developer.yelp.com/reference/create-review-response): UTF-8 text up to 5,000
 * characters, no emoji, at most 20 comments per location per business owner per day.
 */
export const YELP_R2R_MAX_CHARS = 5000;
export const YELP_R2R_PER_LOCATION_PER_DAY = 20;

export function yelpReplyProblems(text: string): string[] {
  const problems: string[] = [];
  if (!text.trim()) problems.push("Yelp does not take an empty reply (Respond to Reviews API)");
  const chars = [...text].length;
  if (chars > YELP_R2R_MAX_CHARS)
    problems.push(
      `Yelp replies are limited to ${YELP_R2R_MAX_CHARS.toLocaleString("en-US")} characters; this one has ${chars.toLocaleString("en-US")} (Respond to Reviews API)`,
    );
  if (/\p{Extended_Pictographic}/u.test(text))
    problems.push("Yelp replies cannot contain emoji (Respond to Reviews API)");
  return problems;
}

/** Respond to Reviews error ids that need a person, as the connection's attention. */
const R2R_ATTENTION: Record<string, { code: string; message: string }> = {
  INVALID_TOKEN: {
    code: "token_invalid",
    message: "Yelp refused the business owner's token (expired or revoked): reconnect the owner",
  },
  INSUFFICIENT_SCOPE: {
    code: "permission_missing",
    message: "The business owner's token lacks the Respond to Reviews scope",
  },
  R2R_PROBLEM_WITH_USER_PHOTO: {
    code: "yelp_owner_photo_missing",
    message: "Yelp needs the business owner's own photo on biz.yelp.com before replies can be posted",
  },
  R2R_BUSINESS_NOT_CLAIMED: {
    code: "yelp_business_not_claimed",
    message: "Yelp cannot tell that this business is claimed by the owner",
  },
};

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
    const body = await callSite<{ reviews?: YelpReview[] }>(this.site, this.fetchFn, url, {
      method: "GET",
      headers: bearer(this.cfg.apiKey),
    });
    return { reviews: (body?.reviews ?? []).map(toReview), nextCursor: null };
  }

  /** Fusion GET /v3/businesses/{id}: rating (0.5 steps) and review_count of any business. */
  async businessSummary(businessId: string): Promise<BusinessSummary> {
    const url = `${trimSlash(this.cfg.baseUrl ?? YELP_FUSION_API)}/v3/businesses/${encodeURIComponent(businessId)}`;
    const b = await callSite<{ id?: string; name?: string; rating?: number; review_count?: number }>(
      this.site,
      this.fetchFn,
      url,
      { method: "GET", headers: bearer(this.cfg.apiKey) },
    );
    return {
      businessId: b?.id ?? businessId,
      name: b?.name ?? null,
      rating: b?.rating ?? null,
      reviewCount: b?.review_count ?? null,
    };
  }

  replyProblems(text: string) {
    return yelpReplyProblems(text);
  }

  /** POST /reviews/v1/{review_id}; a refusal carries Yelp's error id (siteCode) and, where a person must act, the attention. */
  private async respond(externalReviewId: string, text: string, token: string) {
    let errorId: string | null = null;
    const keepErrorId: FetchFn = async (input, init) => {
      const res = await this.fetchFn(input, init);
      if (!res.ok)
        errorId =
          (
            (await res
              .clone()
              .json()
              .catch(() => ({}))) as { error?: { id?: string } }
          ).error?.id ?? null;
      return res;
    };
    try {
      await callSite(
        this.site,
        keepErrorId,
        `${trimSlash(this.cfg.partnerBaseUrl ?? YELP_PARTNER_API)}/reviews/v1/${encodeURIComponent(externalReviewId)}`,
        {
          method: "POST",
          headers: { ...bearer(token), "content-type": "application/json" },
          body: JSON.stringify({ response_text: text, response_type: "public_comment" }),
        },
      );
    } catch (err) {
      if (err instanceof ReviewSiteError && errorId) {
        err.siteCode = errorId;
        err.attention = R2R_ATTENTION[errorId] ?? null;
      }
      throw err;
    }
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
