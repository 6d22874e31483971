import type { InboxStatus } from "../../db/schema";
import { invalidTransition } from "../../lib/errors";

/**
 * Inbox item status moves (PATCH /v1/inbox/{id}, bulk-status), from -> allowed targets. Moving to
 * the status an item already has is a no-op, never an error. Anything else is a 409
 * INVALID_TRANSITION {from, to}. Outside this table: assign moves new -> assigned (and unassign
 * assigned -> new), and publishing a review response marks the review's item responded from any status.
 */
export const INBOX_TRANSITIONS: Record<InboxStatus, readonly InboxStatus[]> = {
  new: ["assigned", "in_progress", "responded", "resolved", "ignored"],
  assigned: ["new", "in_progress", "responded", "resolved", "ignored"],
  in_progress: ["assigned", "responded", "resolved", "ignored"],
  responded: ["in_progress", "resolved"],
  // reopen
  resolved: ["in_progress"],
  // un-ignore
  ignored: ["new"],
};

export const canMove = (from: InboxStatus, to: InboxStatus) => from === to || INBOX_TRANSITIONS[from].includes(to);

export function assertMove(from: InboxStatus, to: InboxStatus, itemId?: string) {
  if (canMove(from, to)) return;
  const e = invalidTransition(from, to, "Inbox item");
  if (itemId) Object.assign(e.details!, { itemId });
  throw e;
}
