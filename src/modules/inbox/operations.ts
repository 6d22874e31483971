import { INBOX_ITEM_TYPES } from "../../db/schema";
import { forbidden } from "../../lib/errors";
import { paged, stdErrors } from "../../lib/openapi";
import { defineOperation, type OperationContext } from "../../lib/operation";
import { InboxItemSchema, InboxListQuery } from "./schemas";
import { listInboxItems } from "./service";

// The inbox operations served by REST, MCP and agents alike (src/lib/operation.ts).

type InboxItemType = (typeof INBOX_ITEM_TYPES)[number];

/** read:reviews unlocks review items, read:feedback feedback items (interface-spec, Authentication 11); a user sees both. */
export const visibleInboxTypes = (scopes: OperationContext["scopes"]): InboxItemType[] =>
  INBOX_ITEM_TYPES.filter(
    (t) => scopes === "all" || scopes.includes(t === "review" ? "read:reviews" : "read:feedback"),
  );

export const listInboxOperation = defineOperation({
  name: "inbox.list",
  operationId: "listInboxItems",
  method: "get",
  path: "/v1/inbox",
  tags: ["Inbox"],
  summary: "Reviews and feedback in one list, newest first",
  description:
    "Lists the unified inbox: online reviews and private customer feedback, newest first, each with status " +
    "(new, assigned, in_progress, responded, resolved, ignored), rating, a text excerpt, sentiment, assignee, tags " +
    "and escalation time. Use it to find what needs a reply. Review items need read:reviews, feedback items read:feedback.",
  request: { query: InboxListQuery },
  output: paged(InboxItemSchema).openapi("InboxItemPage"),
  errors: stdErrors,
  scopes: ["read:reviews", "read:feedback"],
  access: "read",
  // outsider text: marked untrusted in results and the description (mcp/skills/untrusted.ts)
  untrusted: ["data[].excerpt"],
  mcp: {
    title: "List inbox items (reviews and feedback)",
    // the spec's inbox.list limit: default 25, max 100
    limit: { default: 25, max: 100 },
    describe: {
      locationId: "only this location's items",
      status: "only items in this status",
      type: "review or feedback",
      assignedToUserId: "only items assigned to this user",
      cursor: "pageInfo.endCursor from the previous page",
    },
  },
  handler: async (ctx, input) => {
    // a key or grant with one of the two scopes sees that kind of item only, over REST as over MCP
    const types = visibleInboxTypes(ctx.scopes);
    if (input.type && !types.includes(input.type))
      throw forbidden(`${input.type} items need ${input.type === "review" ? "read:reviews" : "read:feedback"}`);
    return listInboxItems(ctx, { ...input, type: input.type ?? (types.length === 1 ? types[0] : undefined) });
  },
});
