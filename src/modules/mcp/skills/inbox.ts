import { z } from "@hono/zod-openapi";
import { INBOX_ITEM_TYPES } from "../../../db/schema";

type InboxItemType = (typeof INBOX_ITEM_TYPES)[number];

import { notFound } from "../../../lib/errors";
import { getInboxItem } from "../../inbox/service";
import type { SessionIdentity } from "../identity";
import { skill } from "./registry";

/** read:reviews unlocks review items, read:feedback feedback items (the spec's scope table). */
const visibleTypes = (caller: SessionIdentity): InboxItemType[] =>
  INBOX_ITEM_TYPES.filter((t) => caller.scopes.includes(t === "review" ? "read:reviews" : "read:feedback"));

export const inboxGetSkill = skill({
  name: "inbox.get",
  title: "Get one inbox item with its responses",
  description:
    "Returns one inbox item with its notes and tags and, for a review, the review with its drafted and published " +
    "responses; for feedback, the feedback answers. itemId is the inbox item id (or the review/feedback id).",
  input: z.object({
    itemId: z.string().min(1).max(64).describe("the inbox item id from inbox.list"),
    itemType: z.enum(INBOX_ITEM_TYPES).describe("review or feedback"),
  }),
  scopes: ["read:reviews", "read:feedback"],
  access: "read",
  // outsider text: marked untrusted in results and the description (untrusted.ts)
  untrusted: [
    "excerpt",
    "review.text",
    "review.authorName",
    "feedback.text",
    "feedback.followUpText",
    "feedback.surveyResponses",
    "responses[].text",
  ],
  handler: async (ctx, input) => {
    // an item of a kind the scopes do not cover is as absent as another tenant's
    if (!visibleTypes(ctx.caller).includes(input.itemType)) throw notFound("Inbox item");
    return getInboxItem(ctx, input.itemId, input.itemType);
  },
});
