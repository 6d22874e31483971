import type { ResponseStatus } from "../../db/schema";
import { invalidTransition } from "../../lib/errors";

export type ResponseAction = "edit" | "submit" | "approve" | "reject" | "publish";

/**
 * The ReviewResponse state table: action -> (from -> to). Anything not listed is a 409
 * INVALID_TRANSITION with {from, to}. Editing a draft keeps it a draft; editing a rejected
 * response brings it back to draft.
 */
export const RESPONSE_TRANSITIONS: Record<ResponseAction, Partial<Record<ResponseStatus, ResponseStatus>>> = {
  edit: { draft: "draft", rejected: "draft" },
  submit: { draft: "submitted" },
  approve: { submitted: "approved" },
  reject: { submitted: "rejected" },
  publish: { approved: "published" },
};

/** The state each action aims for, used in the error when the move is not allowed. */
const TARGET: Record<ResponseAction, ResponseStatus> = { edit: "draft", submit: "submitted", approve: "approved", reject: "rejected", publish: "published" };

export function nextStatus(from: ResponseStatus, action: ResponseAction): ResponseStatus {
  const to = RESPONSE_TRANSITIONS[action][from];
  if (!to) throw invalidTransition(from, TARGET[action], "Review response");
  return to;
}
