import type { ReviewRow } from "../reviews/schemas";
import type { AlertSubscriptionRow } from "./schemas";

type Review = Pick<ReviewRow, "locationId" | "siteType" | "rating" | "text">;

/** Reviews older than this when they reach us (a first sync's backlog) raise no instant alert; the digest still counts them. */
export const MAX_ALERT_AGE_DAYS = 7;

export const recentEnough = (review: Pick<ReviewRow, "occurredAt">, now: Date) =>
  review.occurredAt >= new Date(now.getTime() - MAX_ALERT_AGE_DAYS * 86_400_000).toISOString();

/** Whether a new review passes a subscription's instant-alert filters (every given filter must hold). */
export function alertMatches(sub: AlertSubscriptionRow, review: Review): boolean {
  if (!sub.isActive) return false;
  if (sub.locationId && sub.locationId !== review.locationId) return false;
  if (sub.maxRating !== null) {
    // "rating <= N" cannot hold for a review without stars
    if (review.rating === null || review.rating === undefined || review.rating > sub.maxRating) return false;
  }
  if (sub.siteTypes.length && !sub.siteTypes.includes(review.siteType)) return false;
  if (sub.keywords.length) {
    const text = (review.text ?? "").toLowerCase();
    if (!sub.keywords.some((k) => text.includes(k))) return false;
  }
  return true;
}
