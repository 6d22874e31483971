import type { ResponseStatus } from "../../db/schema";
import { invalidTransition } from "../../lib/errors";

export type ResponseAction =
  | "edit"
  | "submit"
  | "approve"
  | "reject"
  | "publish"
  | "await_moderation"
  | "moderation_pass"
  | "moderation_reject";

/**
 * The ReviewResponse state table: action -> (from -> to). Anything not listed is a 409
 * INVALID_TRANSITION with {from, to}. Editing a draft keeps it a draft; editing a rejected
 * response brings it back to draft.
 *
 * A moderating site (Google) answers a reply with its own state (docs/reviews.md, "Moderation"): the
 * spec's status enum stays, and the site's verdict moves the response through it. Held for review
 * (PENDING) it stays approved, marked `providerState: pending`, and cannot be published again; let
 * through (ACTIVE) it is published; refused (REJECTED) it is rejected with the policy as the reason,
 * even after it went live, and a person edits it (rejected -> draft) and sends it again.
 */
export const RESPONSE_TRANSITIONS: Record<ResponseAction, Partial<Record<ResponseStatus, ResponseStatus>>> = {
  edit: { draft: "draft", rejected: "draft" },
  submit: { draft: "submitted" },
  approve: { submitted: "approved" },
  reject: { submitted: "rejected" },
  publish: { approved: "published" },
  await_moderation: { approved: "approved" },
  moderation_pass: { approved: "published" },
  moderation_reject: { approved: "rejected", published: "rejected" },
};

/** The state each action aims for, used in the error when the move is not allowed. */
const TARGET: Record<ResponseAction, ResponseStatus> = {
  edit: "draft",
  submit: "submitted",
  approve: "approved",
  reject: "rejected",
  publish: "published",
  await_moderation: "approved",
  moderation_pass: "published",
  moderation_reject: "rejected",
};

export function nextStatus(from: ResponseStatus, action: ResponseAction): ResponseStatus {
  const to = RESPONSE_TRANSITIONS[action][from];
  if (!to) throw invalidTransition(from, TARGET[action], "Review response");
  return to;
}
