export type FetchFn = typeof fetch;

/** One review as a site reports it, normalised. */
export interface ExternalReview {
  externalReviewId: string;
  /** 1..5, or null where the site gives none (Facebook recommendations) */
  rating: number | null;
  ratingMax: number | null;
  text: string | null;
  authorName: string | null;
  authorExternalId: string | null;
  language: string | null;
  publishedAt: string | null;
  /** last change on the site; incremental sync stops at reviews older than the last sync */
  updatedAt: string | null;
  url: string | null;
  /** the owner's reply already shown on the site */
  replyText: string | null;
  /** a site's own verdict without stars (Facebook recommendation_type) */
  recommendation?: "positive" | "negative" | null;
  /** where the site moderates owner replies (Google): the reply's state there */
  replyModeration?: ReplyModeration | null;
}

/** A moderated reply's state on the site: held for review, live, or refused for a policy. */
export interface ReplyModeration {
  state: "pending" | "active" | "rejected";
  policyViolation: string | null;
}

/** What a reply call learnt: the site's moderation state, where the site has one. */
export interface ReplyOutcome {
  moderation: ReplyModeration | null;
}

/** A business's public standing on a site (competitor tracking). */
export interface BusinessSummary {
  businessId: string;
  name: string | null;
  rating: number | null;
  reviewCount: number | null;
}

export interface ReviewPage {
  reviews: ExternalReview[];
  /** opaque; null when this was the last page */
  nextCursor: string | null;
}

/** A review site's API for one connected business/location. Pages come newest first. */
export interface ReviewSiteClient {
  readonly site: string;
  listReviews(cursor: string | null): Promise<ReviewPage>;
  /** absent where the site (or this connection) offers no reply API */
  // biome-ignore lint/suspicious/noConfusingVoidType: a client with nothing to report returns nothing
  reply?(externalReviewId: string, text: string): Promise<ReplyOutcome | void>;
  /** the site's published rules for a reply's text, checked before any call: one message per rule broken */
  replyProblems?(text: string): string[];
  /** any business's rating and review count, where the site's API offers it (Yelp Fusion) */
  businessSummary?(businessId: string): Promise<BusinessSummary>;
  /** where a person can reply by hand */
  replyUrl(review: { externalReviewId: string | null; url: string | null }): string | null;
}

/**
 * The site said the connection cannot work until a person acts: an API deprecation (Graph error 12),
 * an expired or revoked token, a missing permission, a feature the site has not enabled. The sync
 * stops polling such a connection and the integration shows it (needsAttention).
 */
export interface SiteAttention {
  code: string;
  message: string;
}

/** A failed call to a review site. 429 and 5xx are retryable; retryAfterSeconds comes from Retry-After. */
export class ReviewSiteError extends Error {
  /** set when the failure needs a person (see SiteAttention); such a failure is never retried */
  attention: SiteAttention | null = null;
  /** the site's own error id, when it gives one (Yelp R2R_COMMENT_QUOTA_EXCEEDED, Graph code 12, ...) */
  siteCode: string | null = null;

  constructor(
    readonly site: string,
    readonly status: number,
    message: string,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = "ReviewSiteError";
  }
  get retryable() {
    if (this.attention) return false;
    return this.status === 429 || this.status >= 500 || this.status === 0;
  }
  get rateLimited() {
    return this.status === 429;
  }
}

/** Retry-After in seconds (delta-seconds or an HTTP date), capped at a day (the queue's delay limit). */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  const secs = /^\d+$/.test(header.trim()) ? Number(header.trim()) : Math.ceil((Date.parse(header) - now) / 1000);
  return Number.isFinite(secs) ? Math.min(86_400, Math.max(1, secs)) : null;
}

/** fetch + JSON with the site's error turned into a ReviewSiteError (message from the body when it has one). */
export async function callSite<T>(site: string, fetchFn: FetchFn, url: string, init: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await fetchFn(url, { ...init, redirect: "manual" });
  } catch (err) {
    throw new ReviewSiteError(site, 0, `network error: ${String(err)}`);
  }
  const body = await res.text();
  if (!res.ok) {
    throw new ReviewSiteError(
      site,
      res.status,
      `${site} answered ${res.status}: ${errorMessage(body)}`,
      retryAfterSeconds(res.headers.get("retry-after")),
    );
  }
  if (!body) return undefined as T;
  try {
    return JSON.parse(body) as T;
  } catch {
    throw new ReviewSiteError(site, 502, `${site} answered with a body that is not JSON`);
  }
}

function errorMessage(body: string): string {
  try {
    const j = JSON.parse(body) as { error?: unknown; message?: unknown; errorMessage?: unknown; details?: unknown };
    const e = j.error as { message?: unknown; description?: unknown; code?: unknown } | string | undefined;
    if (typeof e === "string") return e;
    if (e && typeof e === "object") return String(e.message ?? e.description ?? e.code ?? JSON.stringify(e));
    if (j.message) return String(j.message);
    if (j.errorMessage) return String(j.errorMessage);
  } catch {
    /* not JSON */
  }
  return body.slice(0, 300) || "(empty body)";
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}`, accept: "application/json" });

export const trimSlash = (url: string) => url.replace(/\/+$/, "");
