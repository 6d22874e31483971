import type { ReviewRow } from "../schemas";
import type { AutoReplyRuleRow } from "./schemas";

/** Reviews older than this when they reach us (a first sync's backlog) are never answered automatically. */
export const MAX_REVIEW_AGE_DAYS = 7;

type Review = Pick<ReviewRow, "locationId" | "siteType" | "rating" | "text" | "status" | "occurredAt">;

export function ruleMatches(rule: AutoReplyRuleRow, review: Review): boolean {
  if (!rule.isActive) return false;
  if (rule.locationId && rule.locationId !== review.locationId) return false;
  if (rule.siteType && rule.siteType !== review.siteType) return false;
  // a recommendation without stars is never answered automatically
  if (review.rating === null || review.rating === undefined) return false;
  const stars = Math.round(review.rating);
  if (!rule.ratings.includes(stars)) return false;
  if (stars <= 3 && !rule.allowLowRatings) return false;
  const text = (review.text ?? "").trim();
  if (rule.textCondition === "empty" && text) return false;
  if (rule.textCondition === "present" && !text) return false;
  if (rule.keywords.length) {
    const lower = text.toLowerCase();
    if (!rule.keywords.some((k) => lower.includes(k))) return false;
  }
  return true;
}

/** location + site beats location beats site beats tenant-wide; among equals the oldest rule wins. */
const specificity = (r: AutoReplyRuleRow) => (r.locationId ? 2 : 0) + (r.siteType ? 1 : 0);

export function pickRule(rules: AutoReplyRuleRow[], review: Review): AutoReplyRuleRow | null {
  const ordered = [...rules].sort(
    (a, b) => specificity(b) - specificity(a) || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id),
  );
  return ordered.find((r) => ruleMatches(r, review)) ?? null;
}

/** Only a review nobody has answered yet, that arrived recently. */
export function reviewEligible(review: Review, now: Date): boolean {
  if (review.status !== "new") return false;
  return review.occurredAt >= new Date(now.getTime() - MAX_REVIEW_AGE_DAYS * 86_400_000).toISOString();
}
