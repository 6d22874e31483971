import { z } from "@hono/zod-openapi";
import { AUTO_REPLY_STATUSES } from "../../../db/schema";
import { paged } from "../../../lib/openapi";
import { AutoReplySchema } from "../../reviews/auto-replies/schemas";
import { listAutoReplies } from "../../reviews/auto-replies/service";
import { skill } from "./registry";

export const reviewAutoRepliesSkill = skill({
  name: "review.auto-replies",
  title: "List automatic review replies",
  description:
    "Lists the replies that auto-reply rules drafted for new reviews, oldest first: status queued (waiting in the approval queue), " +
    "scheduled (publishes by itself at publishAt unless someone rejects or cancels it), published, cancelled (a person intervened: " +
    "cancelReason) or failed (lastError). Each names the review, the response and the rule. Use it to see what will go out on its own soon.",
  input: z.object({
    status: z.enum(AUTO_REPLY_STATUSES).optional().describe("only auto replies in this status, e.g. scheduled"),
    reviewId: z.string().max(64).optional().describe("only the auto reply of this review"),
    limit: z.number().int().min(1).max(200).default(25).describe("page size, 1 to 200 (default 25)"),
    cursor: z.string().max(512).optional().describe("pageInfo.endCursor from the previous page"),
  }),
  output: paged(AutoReplySchema),
  scopes: ["read:approvals", "read:reviews"],
  access: "read",
  handler: async (ctx, input) => listAutoReplies(ctx, input),
});
