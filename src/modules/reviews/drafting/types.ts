import type { ServiceContext } from "../../../lib/context";
import type { ReviewRow } from "../schemas";

/** Drafts a reply's text to the review (POST /v1/reviews/{id}/responses {useAi}); the agents module provides it. */
export type ReplyDrafting = (ctx: ServiceContext, review: ReviewRow) => Promise<string>;
