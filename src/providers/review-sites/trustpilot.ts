import {
  bearer,
  callSite,
  type ExternalReview,
  type FetchFn,
  type ReviewPage,
  type ReviewSiteClient,
  trimSlash,
} from "./types";

export const TRUSTPILOT_API = "https://api.trustpilot.com";
const PER_PAGE = 100; // the API's maximum

interface TrustpilotReview {
  id: string;
  stars?: number;
  title?: string;
  text?: string;
  language?: string;
  createdAt?: string;
  updatedAt?: string | null;
  consumer?: { id?: string; displayName?: string };
  companyReply?: { text?: string } | null;
}

export interface TrustpilotConfig {
  businessUnitId: string;
  /** the business user replies are posted as (authorBusinessUserId) */
  businessUserId?: string;
  accessToken: string;
  baseUrl?: string;
}

/** Trustpilot private business-unit reviews (pages from 1) and replies. OAuth access tokens last 100 hours. */
export class TrustpilotClient implements ReviewSiteClient {
  readonly site = "trustpilot";
  private readonly base: string;
  constructor(
    private readonly cfg: TrustpilotConfig,
    private readonly fetchFn: FetchFn,
  ) {
    this.base = `${trimSlash(cfg.baseUrl ?? TRUSTPILOT_API)}/v1/private`;
  }

  async listReviews(cursor: string | null): Promise<ReviewPage> {
    const page = cursor ? Number(cursor) : 1;
    const q = new URLSearchParams({ page: String(page), perPage: String(PER_PAGE), orderBy: "createdat.desc" });
    const body = await callSite<{ reviews?: TrustpilotReview[]; links?: { rel?: string }[] }>(
      this.site,
      this.fetchFn,
      `${this.base}/business-units/${encodeURIComponent(this.cfg.businessUnitId)}/reviews?${q}`,
      { method: "GET", headers: bearer(this.cfg.accessToken) },
    );
    const reviews = (body?.reviews ?? []).map(toReview);
    const hasNext = (body?.links ?? []).some((l) => l.rel === "next-page");
    return { reviews, nextCursor: hasNext ? String(page + 1) : null };
  }

  async reply(externalReviewId: string, text: string): Promise<void> {
    if (!this.cfg.businessUserId) throw new RangeError("config.businessUserId is required to reply on Trustpilot");
    await callSite(this.site, this.fetchFn, `${this.base}/reviews/${encodeURIComponent(externalReviewId)}/reply`, {
      method: "POST",
      headers: { ...bearer(this.cfg.accessToken), "content-type": "application/json" },
      body: JSON.stringify({ authorBusinessUserId: this.cfg.businessUserId, message: text }),
    });
  }

  replyUrl(review: { externalReviewId: string | null }) {
    return review.externalReviewId
      ? `https://www.trustpilot.com/reviews/${encodeURIComponent(review.externalReviewId)}`
      : "https://businessapp.b2b.trustpilot.com/reviews";
  }
}

function toReview(r: TrustpilotReview): ExternalReview {
  const text = [r.title, r.text].filter((s) => s?.trim()).join("\n\n");
  return {
    externalReviewId: r.id,
    rating: r.stars ?? null,
    ratingMax: 5,
    text: text || null,
    authorName: r.consumer?.displayName ?? null,
    authorExternalId: r.consumer?.id ?? null,
    language: r.language ? r.language.slice(0, 2).toLowerCase() : null,
    publishedAt: r.createdAt ?? null,
    updatedAt: r.updatedAt ?? r.createdAt ?? null,
    url: `https://www.trustpilot.com/reviews/${encodeURIComponent(r.id)}`,
    replyText: r.companyReply?.text ?? null,
  };
}
