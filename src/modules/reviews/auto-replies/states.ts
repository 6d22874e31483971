import type { AutoReplyStatus } from "../../../db/schema";
import { invalidTransition } from "../../../lib/errors";

export type AutoReplyMove = "queue" | "schedule" | "claim" | "publish" | "retry" | "fail" | "cancel" | "withdraw";

/**
 * The auto reply's state table: move -> (from -> to). drafting is the claim the event handler
 * takes before it drafts; queue/schedule end it. claim is the publish sweep's lease; withdraw is
 * the sweep finding that a person already acted on the response; cancel is a person's.
 */
export const AUTO_REPLY_TRANSITIONS: Record<AutoReplyMove, Partial<Record<AutoReplyStatus, AutoReplyStatus>>> = {
  queue: { drafting: "queued" },
  schedule: { drafting: "scheduled" },
  claim: { scheduled: "publishing" },
  publish: { publishing: "published" },
  retry: { publishing: "scheduled" },
  fail: { drafting: "failed", publishing: "failed" },
  cancel: { scheduled: "cancelled" },
  withdraw: { publishing: "cancelled" },
};

const TARGET: Record<AutoReplyMove, AutoReplyStatus> = {
  queue: "queued",
  schedule: "scheduled",
  claim: "publishing",
  publish: "published",
  retry: "scheduled",
  fail: "failed",
  cancel: "cancelled",
  withdraw: "cancelled",
};

export function nextAutoReplyStatus(from: AutoReplyStatus, move: AutoReplyMove): AutoReplyStatus {
  const to = AUTO_REPLY_TRANSITIONS[move][from];
  if (!to) throw invalidTransition(from, TARGET[move], "Auto reply");
  return to;
}

/** The statuses a move may start from, for conditional updates. */
export const fromStatuses = (move: AutoReplyMove) => Object.keys(AUTO_REPLY_TRANSITIONS[move]) as AutoReplyStatus[];
