import type { RecommendationStatus } from "../../db/schema";
import { invalidTransition } from "../../lib/errors";

/** Every allowed move of a recommendation, in one place. Anything else is 409 INVALID_TRANSITION. */
export const RECOMMENDATION_MOVES = {
  accept: { from: ["pending", "snoozed"], to: "accepted" },
  reject: { from: ["pending", "snoozed"], to: "rejected" },
  snooze: { from: ["pending"], to: "snoozed" },
  apply: { from: ["pending", "accepted"], to: "applied" },
  /** the sweep, when snoozedUntil has passed */
  wake: { from: ["snoozed"], to: "pending" },
} as const satisfies Record<string, { from: readonly RecommendationStatus[]; to: RecommendationStatus }>;

export type RecommendationMove = keyof typeof RECOMMENDATION_MOVES;

/** Statuses in which a recommendation is still open: one per rule and scope. */
export const OPEN_STATUSES = ["pending", "snoozed", "accepted"] as const satisfies readonly RecommendationStatus[];

export function nextStatus(from: RecommendationStatus, move: RecommendationMove): RecommendationStatus {
  const m = RECOMMENDATION_MOVES[move];
  if (!(m.from as readonly string[]).includes(from)) throw invalidTransition(from, m.to, "Recommendation");
  return m.to;
}
