import { z } from "@hono/zod-openapi";
import { INBOX_ITEM_TYPES, INBOX_STATUSES } from "../../../db/schema";

type InboxItemType = (typeof INBOX_ITEM_TYPES)[number];
import { notFound, forbidden } from "../../../lib/errors";
import { getInboxItem, listInboxItems } from "../../inbox/service";
import type { SessionIdentity } from "../identity";
import { skill } from "./registry";

/** read:reviews unlocks review items, read:feedback feedback items (the spec's scope table). */
const visibleTypes = (caller: SessionIdentity): InboxItemType[] =>
  INBOX_ITEM_TYPES.filter((t) => caller.scopes.includes(t === "review" ? "read:reviews" : "read:feedback"));

export const inboxListSkill = skill({
  name: "inbox.list",
  title: "List inbox items (reviews and feedback)",
  description:
    "Lists the unified inbox: online reviews and private customer feedback, newest first, each with status " +
    "(new, assigned, in_progress, responded, resolved, ignored), rating, a text excerpt, sentiment, assignee, tags " +
    "and escalation time. Use it to find what needs a reply. Review items need read:reviews, feedback items read:feedback.",
  input: z.object({
    locationId: z.string().max(64).optional().describe("only this location's items"),
    status: z.enum(INBOX_STATUSES).optional().describe("only items in this status"),
    type: z.enum(INBOX_ITEM_TYPES).optional().describe("review or feedback"),
    assignedToUserId: z.string().max(64).optional().describe("only items assigned to this user"),
    limit: z.number().int().min(1).max(100).default(25).describe("how many, 1 to 100 (default 25)"),
    cursor: z.string().max(512).optional().describe("pageInfo.endCursor from the previous page"),
  }),
  scopes: ["read:reviews", "read:feedback"],
  access: "read",
  // outsider text: marked untrusted in results and the description (untrusted.ts)
  untrusted: ["data[].excerpt"],
  handler: async (ctx, input) => {
    const types = visibleTypes(ctx.caller);
    if (input.type && !types.includes(input.type)) throw forbidden(`${input.type} items need ${input.type === "review" ? "read:reviews" : "read:feedback"}`);
    return listInboxItems(ctx, { ...input, type: input.type ?? (types.length === 1 ? types[0] : undefined) });
  },
});

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
  untrusted: ["excerpt", "review.text", "review.authorName", "feedback.text", "feedback.followUpText", "feedback.surveyResponses", "responses[].text"],
  handler: async (ctx, input) => {
    // an item of a kind the scopes do not cover is as absent as another tenant's
    if (!visibleTypes(ctx.caller).includes(input.itemType)) throw notFound("Inbox item");
    return getInboxItem(ctx, input.itemId, input.itemType);
  },
});
