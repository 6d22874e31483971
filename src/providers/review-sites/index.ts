import type { ProviderQuota } from "../../durable/provider-quota";
import { budgetedFetch, type CallBudget } from "./call-budget";
import { FacebookClient } from "./facebook";
import { GoogleBusinessProfileClient } from "./google";
import { googleQuotaGate } from "./quota";
import { TrustpilotClient } from "./trustpilot";
import type { FetchFn, ReviewSiteClient } from "./types";
import { YelpClient } from "./yelp";

export const REVIEW_SITES = ["google", "yelp", "facebook", "trustpilot"] as const;
export type ReviewSite = (typeof REVIEW_SITES)[number];
export const isReviewSite = (s: string): s is ReviewSite => (REVIEW_SITES as readonly string[]).includes(s);

/** What each site needs: config keys (ids, not secret) and credential keys (secret). */
export const SITE_REQUIREMENTS: Record<ReviewSite, { config: string[]; credentials: string[] }> = {
  google: { config: ["accountId", "locationId"], credentials: ["accessToken"] },
  trustpilot: { config: ["businessUnitId"], credentials: ["accessToken"] },
  yelp: { config: ["businessId"], credentials: ["apiKey"] },
  facebook: { config: ["pageId"], credentials: ["pageAccessToken"] },
};

export interface SiteConnection {
  connectorType: ReviewSite;
  isSandbox: boolean;
  config: Record<string, unknown>;
  credentials: Record<string, string>;
}

const str = (v: unknown) => (typeof v === "string" && v ? v : undefined);

/** The shared quota limiter (env.PROVIDER_QUOTA) and, for tests on a virtual clock, its time. */
export interface QuotaOptions {
  quota?: DurableObjectNamespace<ProviderQuota>;
  now?: () => number;
  /** a site with fixed published call limits (Trustpilot): spent before every call */
  budget?: CallBudget;
}

/**
 * The client for a connected review site. Base URL overrides (config.apiBaseUrl, config.partnerApiBaseUrl)
 * are honoured only on sandbox integrations, so a production connection always talks to the real API.
 * With `opts.quota` the Google client asks the shared limiter before every call; with `opts.budget`
 * every call first spends from the site's published call budget.
 */
export function reviewSiteClient(conn: SiteConnection, fetchFn: FetchFn, opts: QuotaOptions = {}): ReviewSiteClient {
  // a site with published call limits spends its budget before every call (Trustpilot)
  if (opts.budget) fetchFn = budgetedFetch(fetchFn, opts.budget);
  const c = conn.config;
  const baseUrl = conn.isSandbox ? str(c.apiBaseUrl) : undefined;
  const partnerBaseUrl = conn.isSandbox ? str(c.partnerApiBaseUrl) : undefined;
  const k = conn.credentials;
  switch (conn.connectorType) {
    case "google": {
      const cfg = {
        accountId: String(c.accountId),
        locationId: String(c.locationId),
        accessToken: k.accessToken ?? "",
        baseUrl,
        verificationsBaseUrl: baseUrl,
      };
      return new GoogleBusinessProfileClient(cfg, fetchFn, googleGates(cfg, opts));
    }
    case "trustpilot":
      return new TrustpilotClient(
        {
          businessUnitId: String(c.businessUnitId),
          businessUserId: str(c.businessUserId),
          accessToken: k.accessToken ?? "",
          baseUrl,
        },
        fetchFn,
      );
    case "yelp":
      return new YelpClient(
        {
          businessId: String(c.businessId),
          apiKey: k.apiKey ?? "",
          partnerAccessToken: str(k.partnerAccessToken),
          baseUrl,
          partnerBaseUrl,
        },
        fetchFn,
      );
    case "facebook":
      return new FacebookClient(
        {
          pageId: String(c.pageId),
          pageAccessToken: k.pageAccessToken ?? "",
          graphVersion: str(c.graphVersion),
          baseUrl,
        },
        fetchFn,
      );
  }
}

function googleGates(cfg: { accountId: string; locationId: string }, opts: QuotaOptions) {
  if (!opts.quota) return undefined;
  const profile = `accounts/${cfg.accountId}/locations/${cfg.locationId}`;
  return {
    reviews: googleQuotaGate(opts.quota, { api: "mybusiness", profile, now: opts.now }),
    verifications: googleQuotaGate(opts.quota, { api: "mybusinessverifications", profile, now: opts.now }),
  };
}

export { GoogleApiError, GoogleBusinessProfileClient } from "./google";
export { type QuotaGate, QuotaWaitError } from "./quota";
export {
  type BusinessSummary,
  type ExternalReview,
  type FetchFn,
  type ReplyModeration,
  type ReplyOutcome,
  type ReviewPage,
  type ReviewSiteClient,
  ReviewSiteError,
} from "./types";
