import { type GraphErrorBody, graphAttention } from "./graph-errors";
import {
  bearer,
  callSite,
  type ExternalReview,
  type FetchFn,
  type ReviewPage,
  type ReviewSiteClient,
  ReviewSiteError,
  trimSlash,
} from "./types";

export const GRAPH_API = "https://graph.facebook.com";
const FIELDS = "created_time,recommendation_type,review_text,reviewer{id,name},rating,open_graph_story{id}";

interface FacebookRating {
  created_time?: string;
  recommendation_type?: "positive" | "negative";
  review_text?: string;
  reviewer?: { id?: string; name?: string };
  rating?: number;
  open_graph_story?: { id?: string };
}

export interface FacebookConfig {
  pageId: string;
  pageAccessToken: string;
  graphVersion?: string;
  baseUrl?: string;
}

/**
 * Page ratings (`/{page-id}/ratings`), best effort: Graph deprecates the edge from v22 and a token
 * without pages_read_user_content sees nothing. No reply API: replies are made on the page.
 */
export class FacebookClient implements ReviewSiteClient {
  readonly site = "facebook";
  constructor(
    private readonly cfg: FacebookConfig,
    private readonly fetchFn: FetchFn,
  ) {}

  async listReviews(cursor: string | null): Promise<ReviewPage> {
    const q = new URLSearchParams({ fields: FIELDS, limit: "100" });
    if (cursor) q.set("after", cursor);
    const url = `${trimSlash(this.cfg.baseUrl ?? GRAPH_API)}/${this.cfg.graphVersion ?? "v21.0"}/${encodeURIComponent(this.cfg.pageId)}/ratings?${q}`;
    const body = await this.call<{ data?: FacebookRating[]; paging?: { cursors?: { after?: string }; next?: string } }>(
      url,
    );
    const after = body?.paging?.next ? (body.paging.cursors?.after ?? null) : null;
    return { reviews: (body?.data ?? []).map((r) => toReview(r, this.cfg.pageId)), nextCursor: after };
  }

  /** A Graph call whose refusal names the error, and marks the connection for attention when no retry can fix it. */
  private async call<T>(url: string): Promise<T> {
    const fetchAndKeep: FetchFn = async (input, init) => {
      const res = await this.fetchFn(input, init);
      if (!res.ok)
        this.lastError = (await res
          .clone()
          .json()
          .catch(() => undefined)) as GraphErrorBody | undefined;
      return res;
    };
    try {
      return await callSite<T>(this.site, fetchAndKeep, url, {
        method: "GET",
        headers: bearer(this.cfg.pageAccessToken),
      });
    } catch (err) {
      if (err instanceof ReviewSiteError) {
        err.attention = graphAttention(this.lastError);
        if (this.lastError?.error?.code !== undefined) err.siteCode = String(this.lastError.error.code);
      }
      throw err;
    }
  }

  private lastError: GraphErrorBody | undefined;

  replyUrl() {
    return `https://www.facebook.com/${encodeURIComponent(this.cfg.pageId)}/reviews`;
  }
}

function toReview(r: FacebookRating, pageId: string): ExternalReview {
  // a rating has no id of its own; its open graph story does, else reviewer + time identify it
  const id = r.open_graph_story?.id ?? `${r.reviewer?.id ?? "anonymous"}_${r.created_time ?? ""}`;
  const at = r.created_time ? new Date(r.created_time).toISOString() : null;
  return {
    externalReviewId: id,
    rating: typeof r.rating === "number" ? r.rating : null,
    ratingMax: typeof r.rating === "number" ? 5 : null,
    text: r.review_text ?? null,
    authorName: r.reviewer?.name ?? null,
    authorExternalId: r.reviewer?.id ?? null,
    language: null,
    publishedAt: at,
    updatedAt: at,
    url: r.open_graph_story?.id
      ? `https://www.facebook.com/${r.open_graph_story.id}`
      : `https://www.facebook.com/${pageId}/reviews`,
    replyText: null,
    recommendation: r.recommendation_type ?? null,
  };
}
