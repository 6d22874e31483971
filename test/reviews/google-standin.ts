import { jsonResponse } from "./helpers";

/**
 * A local stand-in for Google Business Profile that speaks Google's rules (docs/reviews.md,
 * "Google Business Profile rules"): reviews.list paging (pageSize <= 50, pageToken), reviews.get,
 * reviews.updateReply with moderation (reviewReplyState PENDING / ACTIVE / REJECTED + policyViolation),
 * FAILED_PRECONDITION for an unverified location, the Verifications API's VoiceOfMerchantState, and
 * the quotas: requests per minute per project and edits per minute per profile, answered with 429
 * RESOURCE_EXHAUSTED (no Retry-After, as Google). Time is a virtual clock the test advances.
 */
export interface StandInReview {
  name: string;
  reviewId: string;
  reviewer: { displayName: string; isAnonymous?: boolean };
  starRating: "ONE" | "TWO" | "THREE" | "FOUR" | "FIVE";
  comment?: string;
  createTime: string;
  updateTime: string;
  reviewReply?: {
    comment: string;
    updateTime: string;
    reviewReplyState: "PENDING" | "ACTIVE" | "REJECTED";
    policyViolation?: unknown;
  };
}

interface Profile {
  verified: boolean;
  reviews: StandInReview[];
}

export interface GoogleStandInOptions {
  /** requests per rolling minute per project (Google's default 300); lower = the project shares its quota */
  requestsPerMinute?: number;
  /** edits per rolling minute per profile (Google: 10, cannot be raised) */
  editsPerMinute?: number;
  /** at most this many reviews per page, whatever pageSize asks (a server may return fewer) */
  servePageSize?: number;
  /** what moderation answers to a reply (default PENDING) */
  moderate?: (comment: string) => "PENDING" | "ACTIVE" | "REJECTED";
  /** virtual time each call takes (ms) */
  latencyMs?: number;
}

const STARS = ["ONE", "TWO", "THREE", "FOUR", "FIVE"] as const;
const MINUTE = 60_000;

const googleError = (code: number, status: string, message: string, extra: Record<string, unknown> = {}) =>
  jsonResponse({ error: { code, message, status, ...extra } }, code);

export class GoogleStandIn {
  now: number;
  readonly profiles = new Map<string, Profile>();
  /** every call that reached the stand-in, with its virtual time and answer */
  readonly log: { at: number; method: string; path: string; status: number }[] = [];
  private readonly opts: Required<GoogleStandInOptions>;
  private readonly editTimes = new Map<string, number[]>();

  constructor(start = Date.parse("2026-06-01T00:00:00Z"), opts: GoogleStandInOptions = {}) {
    this.now = start;
    this.opts = {
      requestsPerMinute: 300,
      editsPerMinute: 10,
      servePageSize: 50,
      moderate: () => "PENDING",
      latencyMs: 0,
      ...opts,
    };
  }

  clock = () => this.now;

  /** a profile `accounts/{a}/locations/{l}` with `count` reviews, newest change first */
  addProfile(accountId: string, locationId: string, count: number, o: { verified?: boolean } = {}) {
    const reviews: StandInReview[] = [];
    for (let i = 0; i < count; i++) {
      const t = new Date(Date.parse("2026-05-01T00:00:00Z") - i * 3_600_000).toISOString();
      reviews.push({
        name: `accounts/${accountId}/locations/${locationId}/reviews/${locationId}-r${i}`,
        reviewId: `${locationId}-r${i}`,
        reviewer: { displayName: `Guest ${i}` },
        starRating: STARS[i % 5]!,
        comment: `Visit ${i} at ${locationId}`,
        createTime: t,
        updateTime: t,
      });
    }
    this.profiles.set(`accounts/${accountId}/locations/${locationId}`, { verified: o.verified ?? true, reviews });
    return reviews;
  }

  /** one review (to reply to) on a profile, creating the profile if needed */
  addReview(accountId: string, locationId: string, reviewId: string, o: { verified?: boolean } = {}) {
    const key = `accounts/${accountId}/locations/${locationId}`;
    const profile = this.profiles.get(key) ?? { verified: o.verified ?? true, reviews: [] };
    const t = new Date(this.now - 86_400_000).toISOString();
    const review: StandInReview = {
      name: `${key}/reviews/${reviewId}`,
      reviewId,
      reviewer: { displayName: "Robin" },
      starRating: "FOUR",
      comment: "Nice",
      createTime: t,
      updateTime: t,
    };
    profile.reviews.push(review);
    this.profiles.set(key, profile);
    return review;
  }

  setVerified(accountId: string, locationId: string, verified: boolean) {
    this.profiles.get(`accounts/${accountId}/locations/${locationId}`)!.verified = verified;
  }

  /** Google's moderators decide later: the reply's state as reviews.get/list will show it */
  moderateReply(reviewName: string, state: "ACTIVE" | "REJECTED", policyViolation?: unknown) {
    const review = this.findReview(reviewName);
    if (!review?.reviewReply) throw new Error(`no reply on ${reviewName}`);
    review.reviewReply = {
      ...review.reviewReply,
      reviewReplyState: state,
      ...(policyViolation ? { policyViolation } : {}),
    };
  }

  findReview(reviewName: string) {
    const profile = this.profiles.get(reviewName.split("/reviews/")[0]!);
    return profile?.reviews.find((r) => r.name === reviewName);
  }

  /** the most calls in any rolling minute, and the 429s answered */
  figures() {
    const times = this.log.map((c) => c.at).sort((a, b) => a - b);
    let max = 0;
    for (let i = 0, j = 0; i < times.length; i++) {
      while (times[i]! - times[j]! >= MINUTE) j++;
      max = Math.max(max, i - j + 1);
    }
    const accepted = this.log.filter((c) => c.status !== 429).map((c) => c.at);
    return {
      requests: this.log.length,
      rateLimited: this.log.filter((c) => c.status === 429).length,
      maxRequestsPerMinute: max,
      maxAcceptedPerMinute: maxInWindow(accepted),
      durationMs: times.length ? times[times.length - 1]! - times[0]! : 0,
    };
  }

  fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    const body = await req.text();
    const at = this.now;
    this.now += this.opts.latencyMs;
    const res = this.answer(req, url, body, at);
    this.log.push({ at, method: req.method, path: url.pathname, status: res.status });
    return res;
  }) as typeof fetch;

  private answer(req: Request, url: URL, body: string, at: number): Response {
    if (!/^Bearer \S+/.test(req.headers.get("authorization") ?? "")) {
      return googleError(401, "UNAUTHENTICATED", "Request is missing required authentication credential.");
    }
    const recent = this.log.filter((c) => c.at > at - MINUTE && c.status !== 429).length;
    if (recent >= this.opts.requestsPerMinute) {
      return googleError(
        429,
        "RESOURCE_EXHAUSTED",
        "Quota exceeded for quota metric 'Requests' and limit 'Requests per minute' of service 'mybusiness.googleapis.com'.",
        {
          details: [
            {
              "@type": "type.googleapis.com/google.rpc.ErrorInfo",
              reason: "RATE_LIMIT_EXCEEDED",
              domain: "googleapis.com",
            },
          ],
        },
      );
    }
    const vom = /^\/v1\/locations\/([^/]+)\/VoiceOfMerchantState$/.exec(url.pathname);
    if (vom && req.method === "GET") {
      const entry = [...this.profiles.entries()].find(([k]) => k.endsWith(`/locations/${vom[1]}`));
      if (!entry) return googleError(404, "NOT_FOUND", "Requested entity was not found.");
      return entry[1].verified
        ? jsonResponse({ hasVoiceOfMerchant: true, hasBusinessAuthority: true })
        : jsonResponse({
            hasVoiceOfMerchant: false,
            hasBusinessAuthority: false,
            verify: { hasPendingVerification: false },
          });
    }
    const m = /^\/v4\/(accounts\/[^/]+\/locations\/[^/]+)\/reviews(?:\/([^/]+))?(\/reply)?$/.exec(url.pathname);
    if (!m) return googleError(404, "NOT_FOUND", "Requested entity was not found.");
    const [, profileName, reviewId, reply] = m;
    const profile = this.profiles.get(profileName!);
    if (!profile) return googleError(404, "NOT_FOUND", "Requested entity was not found.");
    if (!profile.verified)
      return googleError(400, "FAILED_PRECONDITION", "Precondition check failed. The location is not verified.");

    if (!reviewId && req.method === "GET") return this.list(profile, url);
    const review = profile.reviews.find((r) => r.reviewId === reviewId);
    if (!review) return googleError(404, "NOT_FOUND", "Requested entity was not found.");
    if (!reply && req.method === "GET") return jsonResponse(review);
    if (reply && req.method === "PUT") return this.updateReply(profileName!, review, body, at);
    return googleError(404, "NOT_FOUND", "Requested entity was not found.");
  }

  private list(profile: Profile, url: URL) {
    const pageSize = Number(url.searchParams.get("pageSize") ?? "50");
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 50) {
      return googleError(400, "INVALID_ARGUMENT", "Request contains an invalid argument.");
    }
    const size = Math.min(pageSize, this.opts.servePageSize);
    const start = Number(url.searchParams.get("pageToken") ?? "0");
    const sorted = [...profile.reviews].sort((a, b) => b.updateTime.localeCompare(a.updateTime));
    const page = sorted.slice(start, start + size);
    const next = start + size < sorted.length ? String(start + size) : undefined;
    const rated = profile.reviews.length;
    return jsonResponse({
      reviews: page,
      averageRating: 3,
      totalReviewCount: rated,
      ...(next ? { nextPageToken: next } : {}),
    });
  }

  private updateReply(profileName: string, review: StandInReview, body: string, at: number) {
    const edits = (this.editTimes.get(profileName) ?? []).filter((t) => t > at - MINUTE);
    if (edits.length >= this.opts.editsPerMinute) {
      return googleError(
        429,
        "RESOURCE_EXHAUSTED",
        "Quota exceeded for quota metric 'Edits' and limit 'Edits per minute per profile'.",
      );
    }
    const comment = (JSON.parse(body || "{}") as { comment?: unknown }).comment;
    if (typeof comment !== "string" || !comment || new TextEncoder().encode(comment).length > 4096) {
      return googleError(400, "INVALID_ARGUMENT", "Request contains an invalid argument.");
    }
    edits.push(at);
    this.editTimes.set(profileName, edits);
    const state = this.opts.moderate(comment);
    review.reviewReply = {
      comment,
      updateTime: new Date(at).toISOString(),
      reviewReplyState: state,
      ...(state === "REJECTED"
        ? {
            policyViolation: {
              type: "PROHIBITED_CONTENT",
              description: "The reply contains content that violates Google's policy.",
            },
          }
        : {}),
    };
    return jsonResponse(review.reviewReply);
  }
}

function maxInWindow(times: number[]) {
  const t = [...times].sort((a, b) => a - b);
  let max = 0;
  for (let i = 0, j = 0; i < t.length; i++) {
    while (t[i]! - t[j]! >= MINUTE) j++;
    max = Math.max(max, i - j + 1);
  }
  return max;
}
