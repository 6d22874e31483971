import { FacebookClient } from "./facebook";
import { GoogleBusinessProfileClient } from "./google";
import { TrustpilotClient } from "./trustpilot";
import type { FetchFn, ReviewSiteClient } from "./types";
import { budgetedFetch, type CallBudget } from "./call-budget";
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

/**
 * The client for a connected review site. Base URL overrides (config.apiBaseUrl, config.partnerApiBaseUrl)
 * are honoured only on sandbox integrations, so a production connection always talks to the real API.
 */
export function reviewSiteClient(conn: SiteConnection, fetchFn: FetchFn, o: { budget?: CallBudget } = {}): ReviewSiteClient {
  // a site with published call limits spends its budget before every call (Trustpilot)
  if (o.budget) fetchFn = budgetedFetch(fetchFn, o.budget);
  const c = conn.config;
  const baseUrl = conn.isSandbox ? str(c.apiBaseUrl) : undefined;
  const partnerBaseUrl = conn.isSandbox ? str(c.partnerApiBaseUrl) : undefined;
  const k = conn.credentials;
  switch (conn.connectorType) {
    case "google":
      return new GoogleBusinessProfileClient({ accountId: String(c.accountId), locationId: String(c.locationId), accessToken: k.accessToken ?? "", baseUrl }, fetchFn);
    case "trustpilot":
      return new TrustpilotClient({ businessUnitId: String(c.businessUnitId), businessUserId: str(c.businessUserId), accessToken: k.accessToken ?? "", baseUrl }, fetchFn);
    case "yelp":
      return new YelpClient({ businessId: String(c.businessId), apiKey: k.apiKey ?? "", partnerAccessToken: str(k.partnerAccessToken), baseUrl, partnerBaseUrl }, fetchFn);
    case "facebook":
      return new FacebookClient({ pageId: String(c.pageId), pageAccessToken: k.pageAccessToken ?? "", graphVersion: str(c.graphVersion), baseUrl }, fetchFn);
  }
}

export { ReviewSiteError, type BusinessSummary, type ExternalReview, type FetchFn, type ReviewSiteClient } from "./types";
