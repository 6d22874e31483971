import { type CallKind, DEFAULT_BACKOFF_SECONDS, type QuotaGate } from "./quota";
import {
  bearer,
  type ExternalReview,
  type FetchFn,
  type ReplyModeration,
  type ReplyOutcome,
  type ReviewPage,
  type ReviewSiteClient,
  ReviewSiteError,
  retryAfterSeconds,
  trimSlash,
} from "./types";

export const GOOGLE_API = "https://mybusiness.googleapis.com";
export const GOOGLE_VERIFICATIONS_API = "https://mybusinessverifications.googleapis.com";
const PAGE_SIZE = 50; // the API's maximum
const STARS: Record<string, number> = { ONE: 1, TWO: 2, THREE: 3, FOUR: 4, FIVE: 5 };
export const REPLY_MAX_BYTES = 4096;

/** ReviewReply as reviews.list/get and updateReply return it (reviewReplyState since 2026-04, policyViolation since 2026-07). */
interface GoogleReply {
  comment?: string;
  updateTime?: string;
  reviewReplyState?: string;
  policyViolation?: unknown;
}

interface GoogleReview {
  name: string;
  reviewId: string;
  reviewer?: { displayName?: string; isAnonymous?: boolean };
  starRating?: string;
  comment?: string;
  createTime?: string;
  updateTime?: string;
  reviewReply?: GoogleReply;
  reviewReplyUrl?: string;
}

export interface GoogleConfig {
  accountId: string;
  locationId: string;
  accessToken: string;
  baseUrl?: string;
  /** the Verifications API's base (sandbox connections point it at a stand-in too) */
  verificationsBaseUrl?: string;
}

/** A Google API error: `googleStatus` is the canonical code of the body (FAILED_PRECONDITION, RESOURCE_EXHAUSTED, ...). */
export class GoogleApiError extends ReviewSiteError {
  constructor(
    status: number,
    message: string,
    readonly googleStatus: string | null,
    retryAfter: number | null,
  ) {
    super("google", status, message, retryAfter);
    this.name = "GoogleApiError";
  }
  /** reviews.updateReply and reviews.list are "only valid if the specified location is verified" */
  get locationNotVerified() {
    return this.googleStatus === "FAILED_PRECONDITION";
  }
}

/** Google's reply state, lower-cased; an absent state (replies before 2026-04) counts as live. */
export function replyModeration(reply: GoogleReply | undefined | null): ReplyModeration | null {
  if (!reply?.comment) return null;
  const s = (reply.reviewReplyState ?? "").toUpperCase();
  const state = s === "PENDING" ? "pending" : s === "REJECTED" ? "rejected" : "active";
  return { state, policyViolation: state === "rejected" ? violationText(reply.policyViolation) : null };
}

/** The policy a rejected reply broke, as text, whatever shape the field takes. */
function violationText(v: unknown): string {
  if (typeof v === "string" && v) return v;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    const parts = [o.type, o.policy, o.reason, o.description, o.message].filter(
      (x): x is string => typeof x === "string" && x.length > 0,
    );
    if (parts.length) return [...new Set(parts)].join(": ");
    return JSON.stringify(v).slice(0, 300);
  }
  return "POLICY_VIOLATION_UNSPECIFIED";
}

/**
 * Google Business Profile v4 reviews: list (newest change first), get and reply; the Verifications
 * API's VoiceOfMerchantState tells whether the location may reply. OAuth scope business.manage.
 * Every call goes through the quota gate first (300 requests/min per project, 10 edits/min per
 * profile); a 429 tells the gate to hold every caller of the account.
 */
export class GoogleBusinessProfileClient implements ReviewSiteClient {
  readonly site = "google";
  private readonly base: string;
  private readonly verificationsBase: string;
  constructor(
    private readonly cfg: GoogleConfig,
    private readonly fetchFn: FetchFn,
    private readonly quota?: { reviews: QuotaGate; verifications: QuotaGate },
  ) {
    this.base = `${trimSlash(cfg.baseUrl ?? GOOGLE_API)}/v4/accounts/${encodeURIComponent(cfg.accountId)}/locations/${encodeURIComponent(cfg.locationId)}/reviews`;
    this.verificationsBase = trimSlash(cfg.verificationsBaseUrl ?? GOOGLE_VERIFICATIONS_API);
  }

  private async call<T>(gate: QuotaGate | undefined, kind: CallKind, url: string, init: RequestInit): Promise<T> {
    await gate?.take(kind);
    let res: Response;
    try {
      res = await this.fetchFn(url, {
        ...init,
        redirect: "manual",
        headers: { ...bearer(this.cfg.accessToken), ...(init.headers as Record<string, string>) },
      });
    } catch (err) {
      throw new ReviewSiteError(this.site, 0, `network error: ${String(err)}`);
    }
    const text = await res.text();
    if (!res.ok) {
      const { message, status } = googleError(text);
      const retryAfter = retryAfterSeconds(res.headers.get("retry-after"));
      if (res.status === 429) await gate?.backOff(kind, retryAfter ?? DEFAULT_BACKOFF_SECONDS);
      throw new GoogleApiError(
        res.status,
        `google answered ${res.status}${status ? ` ${status}` : ""}: ${message}`,
        status,
        retryAfter,
      );
    }
    if (!text) return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ReviewSiteError(this.site, 502, "google answered with a body that is not JSON");
    }
  }

  async listReviews(cursor: string | null): Promise<ReviewPage> {
    const q = new URLSearchParams({ pageSize: String(PAGE_SIZE), orderBy: "updateTime desc" });
    if (cursor) q.set("pageToken", cursor);
    const body = await this.call<{ reviews?: GoogleReview[]; nextPageToken?: string }>(
      this.quota?.reviews,
      "read",
      `${this.base}?${q}`,
      { method: "GET" },
    );
    return { reviews: (body?.reviews ?? []).map(toReview), nextCursor: body?.nextPageToken || null };
  }

  /** reviews.get: the review with its reply's moderation state (how a pending reply is followed up). */
  async getReview(externalReviewId: string): Promise<ExternalReview> {
    return toReview(
      await this.call<GoogleReview>(
        this.quota?.reviews,
        "read",
        `${this.base}/${encodeURIComponent(externalReviewId)}`,
        { method: "GET" },
      ),
    );
  }

  /** reviews.updateReply: an edit. Google moderates the reply: the answer says PENDING, ACTIVE or REJECTED. */
  /** RangeError when Google would refuse the reply's size (checked before anything is sent) */
  static assertReplyFits(text: string) {
    if (new TextEncoder().encode(text).length > REPLY_MAX_BYTES) {
      throw new RangeError(`Google replies are limited to ${REPLY_MAX_BYTES} bytes`);
    }
  }

  async reply(externalReviewId: string, text: string): Promise<ReplyOutcome> {
    GoogleBusinessProfileClient.assertReplyFits(text);
    const body = await this.call<GoogleReply | undefined>(
      this.quota?.reviews,
      "edit",
      `${this.base}/${encodeURIComponent(externalReviewId)}/reply`,
      {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ comment: text }),
      },
    );
    return { moderation: replyModeration({ comment: text, ...body }) };
  }

  /**
   * Verifications API locations.getVoiceOfMerchantState: hasVoiceOfMerchant is true when the
   * location is verified and in good standing, the condition for replying to its reviews.
   */
  async isVerified(): Promise<boolean> {
    const url = `${this.verificationsBase}/v1/locations/${encodeURIComponent(this.cfg.locationId)}/VoiceOfMerchantState`;
    const body = await this.call<{ hasVoiceOfMerchant?: boolean }>(this.quota?.verifications, "read", url, {
      method: "GET",
    });
    return body?.hasVoiceOfMerchant === true;
  }

  replyUrl() {
    return "https://business.google.com/reviews";
  }
}

/** Google's error body: {error: {code, message, status, details}}. */
function googleError(text: string): { message: string; status: string | null } {
  try {
    const e = (JSON.parse(text) as { error?: { message?: unknown; status?: unknown } }).error;
    if (e && typeof e === "object")
      return { message: String(e.message ?? "(no message)"), status: typeof e.status === "string" ? e.status : null };
  } catch {
    /* not JSON */
  }
  return { message: text.slice(0, 300) || "(empty body)", status: null };
}

function toReview(r: GoogleReview): ExternalReview {
  const moderation = replyModeration(r.reviewReply);
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
    url: r.reviewReplyUrl ?? null,
    // a reply Google holds for moderation or refused is not on the profile: not an owner reply yet
    replyText: moderation?.state === "active" ? (r.reviewReply?.comment ?? null) : null,
    replyModeration: moderation,
  };
}
