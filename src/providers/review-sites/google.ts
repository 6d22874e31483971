import { bearer, callSite, trimSlash, type ExternalReview, type FetchFn, type ReviewPage, type ReviewSiteClient } from "./types";

export const GOOGLE_API = "https://mybusiness.googleapis.com";
const PAGE_SIZE = 50; // the API's maximum
const STARS: Record<string, number> = { ONE: 1, TWO: 2, THREE: 3, FOUR: 4, FIVE: 5 };
const REPLY_MAX_BYTES = 4096;

interface GoogleReview {
  name: string;
  reviewId: string;
  reviewer?: { displayName?: string; isAnonymous?: boolean };
  starRating?: string;
  comment?: string;
  createTime?: string;
  updateTime?: string;
  reviewReply?: { comment?: string; updateTime?: string };
}

export interface GoogleConfig {
  accountId: string;
  locationId: string;
  accessToken: string;
  baseUrl?: string;
}

/** Google Business Profile v4 reviews: list (newest change first) and reply. OAuth scope business.manage. */
export class GoogleBusinessProfileClient implements ReviewSiteClient {
  readonly site = "google";
  private readonly base: string;
  constructor(
    private readonly cfg: GoogleConfig,
    private readonly fetchFn: FetchFn,
  ) {
    this.base = `${trimSlash(cfg.baseUrl ?? GOOGLE_API)}/v4/accounts/${encodeURIComponent(cfg.accountId)}/locations/${encodeURIComponent(cfg.locationId)}/reviews`;
  }

  async listReviews(cursor: string | null): Promise<ReviewPage> {
    const q = new URLSearchParams({ pageSize: String(PAGE_SIZE), orderBy: "updateTime desc" });
    if (cursor) q.set("pageToken", cursor);
    const body = await callSite<{ reviews?: GoogleReview[]; nextPageToken?: string }>(this.site, this.fetchFn, `${this.base}?${q}`, {
      method: "GET",
      headers: bearer(this.cfg.accessToken),
    });
    return { reviews: (body?.reviews ?? []).map(toReview), nextCursor: body?.nextPageToken || null };
  }

  async reply(externalReviewId: string, text: string): Promise<void> {
    if (new TextEncoder().encode(text).length > REPLY_MAX_BYTES) {
      throw new RangeError(`Google replies are limited to ${REPLY_MAX_BYTES} bytes`);
    }
    await callSite(this.site, this.fetchFn, `${this.base}/${encodeURIComponent(externalReviewId)}/reply`, {
      method: "PUT",
      headers: { ...bearer(this.cfg.accessToken), "content-type": "application/json" },
      body: JSON.stringify({ comment: text }),
    });
  }

  replyUrl() {
    return "https://business.google.com/reviews";
  }
}

function toReview(r: GoogleReview): ExternalReview {
  return {
    externalReviewId: r.reviewId,
    rating: r.starRating ? (STARS[r.starRating] ?? null) : null,
    ratingMax: 5,
    text: r.comment ?? null,
    authorName: r.reviewer?.isAnonymous ? null : (r.reviewer?.displayName ?? null),
    authorExternalId: null,
    language: null,
    publishedAt: r.createTime ?? null,
    updatedAt: r.updateTime ?? r.createTime ?? null,
    url: null,
    replyText: r.reviewReply?.comment ?? null,
  };
}
