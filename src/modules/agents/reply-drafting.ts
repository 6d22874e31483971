import { ApiError } from "../../lib/errors";
import type { ReplyDrafting } from "../reviews/drafting/types";
import { replyDrafter } from "./agents/reply-drafter";
import { runAgent } from "./runtime";
import { SYSTEM_AGENT_SCOPES } from "./tools";

/**
 * Drafts a reply to the review through the agent runtime's reply drafter: the llm engine when the
 * AI binding exists, else the built-in phrase engine (review's language, topics, brand voice).
 * When the model fails (output invalid twice, timeout, binding error), the rules engine drafts instead.
 */
export const draftResponse: ReplyDrafting = async (ctx, review) => {
  // the drafter reads only the review being answered (review.get), which the caller (a reply author
  // allowed by the route's role, or the service's own automation) was already allowed to reach
  const actx = { ...ctx, canWrite: false, scopes: SYSTEM_AGENT_SCOPES };
  try {
    return String((await runAgent(actx, replyDrafter, { reviewId: review.id })).output.text);
  } catch (e) {
    // a missing review stays an error; a model failure (bad output twice, timeout, binding error) does not
    if (!ctx.env.AI || (e instanceof ApiError && e.status < 500)) throw e;
    return String((await runAgent(actx, replyDrafter, { reviewId: review.id }, { engine: "rules" })).output.text);
  }
};
