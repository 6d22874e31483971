import { z } from "@hono/zod-openapi";
import { INBOX_ITEM_TYPES } from "../../db/schema";
import { forbidden, notFound } from "../../lib/errors";
import { errors, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation, type OperationContext } from "../../lib/operation";
import {
  addInboxNote,
  assignInboxItem,
  bulkSetInboxStatus,
  escalateInboxItem,
  setInboxTags,
  updateInboxItem,
} from "./actions";
import {
  AssignInboxBody,
  BulkStatusBody,
  EscalateInboxBody,
  InboxIdParam,
  InboxItemDetailSchema,
  InboxItemSchema,
  InboxListQuery,
  InboxTagsSetSchema,
  InboxTypeQuery,
  NoteInboxBody,
  PatchInboxBody,
  SuccessSchema,
  TagsInboxBody,
} from "./schemas";
import { getInboxItem, listInboxItems } from "./service";

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
    "The unified inbox of online reviews and private feedback, newest first. Use it to find what needs a reply. " +
    "channel: the review site, or for feedback the request's channel. Review items need read:reviews, feedback read:feedback.",
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
    describe: { pastSla: "true: only reviews unanswered past their SLA window" },
  },
  console: {},
  handler: async (ctx, input) => {
    // a key or grant with one of the two scopes sees that kind of item only, over REST as over MCP
    const types = visibleInboxTypes(ctx.scopes);
    if (input.type && !types.includes(input.type))
      throw forbidden(`${input.type} items need ${input.type === "review" ? "read:reviews" : "read:feedback"}`);
    return listInboxItems(ctx, { ...input, type: input.type ?? (types.length === 1 ? types[0] : undefined) });
  },
});

// The triage steps, also the buttons of the MCP Apps inbox triage card (mcp/apps/cards.ts). REST keeps
// them to signed-in users (identity/scopes.ts); over MCP write:inbox admits them, on the kinds of item the
// caller's read scopes cover, with the role checked per call for a user and the user's confirmation first.

/** A key or grant acts only on the kinds of item it can read (as inbox.list and inbox.get show them). */
function assertKindVisible(scopes: OperationContext["scopes"], type: InboxItemType | undefined) {
  const types = visibleInboxTypes(scopes);
  if (type ? !types.includes(type) : types.length < INBOX_ITEM_TYPES.length)
    throw forbidden(
      type
        ? `${type} items need ${type === "review" ? "read:reviews" : "read:feedback"}`
        : "without type, this needs both read:reviews and read:feedback",
    );
}

const itemIdField = { id: "from inbox.list", type: "the item's kind" };

export const assignInboxOperation = defineOperation({
  name: "inbox.assign",
  operationId: "assignInboxItem",
  method: "post",
  path: "/v1/inbox/{id}/assign",
  tags: ["Inbox"],
  summary: "Assign an item to a user of this tenant (tenant_user)",
  request: { params: InboxIdParam, body: AssignInboxBody },
  output: SuccessSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: [],
  minRole: "tenant_user",
  access: "write",
  idempotent: true,
  confirm: (input) =>
    input.userId ? `Assign inbox item ${input.id} to user ${input.userId}?` : `Unassign inbox item ${input.id}?`,
  mcp: {
    title: "Assign an inbox item",
    description:
      "Assigns an inbox item to a user of this business (a new item becomes assigned); userId null unassigns (back to new).",
    scopes: ["write:inbox"],
    rename: { id: "itemId" },
    required: ["type"],
    describe: itemIdField,
  },
  console: {},
  handler: async (ctx, input) => {
    const { id, ...body } = input as { id: string; userId: string | null; type?: InboxItemType };
    assertKindVisible(ctx.scopes, body.type);
    return assignInboxItem(ctx, id, body);
  },
});

export const setInboxTagsOperation = defineOperation({
  name: "inbox.set-tags",
  operationId: "replaceInboxItemTags",
  method: "post",
  path: "/v1/inbox/{id}/tags",
  tags: ["Inbox"],
  summary: "Replace an item's tags (tenant_user)",
  request: { params: InboxIdParam, body: TagsInboxBody },
  output: InboxTagsSetSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_user",
  access: "write",
  destructive: true,
  idempotent: true,
  confirm: (input) => `Set the tags of inbox item ${input.id} to: ${input.tags.join(", ") || "(none)"}?`,
  mcp: {
    title: "Replace an inbox item's tags",
    description: "Replaces an inbox item's tags (trimmed, case-insensitive duplicates dropped, at most 20).",
    scopes: ["write:inbox"],
    rename: { id: "itemId" },
    required: ["type"],
    describe: itemIdField,
  },
  console: {},
  handler: async (ctx, input) => {
    const { id, ...body } = input as { id: string; tags: string[]; type?: InboxItemType };
    assertKindVisible(ctx.scopes, body.type);
    return setInboxTags(ctx, id, body);
  },
});

export const setInboxStatusOperation = defineOperation({
  name: "inbox.set-status",
  operationId: "updateInboxItemsStatus",
  method: "post",
  path: "/v1/inbox/bulk-status",
  tags: ["Inbox"],
  summary: "Set the status of up to 200 items, all or nothing (tenant_user)",
  request: { body: BulkStatusBody },
  output: SuccessSchema,
  errors: { ...stdErrors, 409: errors[409] },
  scopes: [],
  minRole: "tenant_user",
  access: "write",
  idempotent: true,
  confirm: (input) =>
    `Set ${input.itemIds.length === 1 ? `inbox item ${input.itemIds[0]}` : `${input.itemIds.length} inbox items`} to ${input.status}?`,
  mcp: {
    title: "Set the status of inbox items (close, reopen, ignore)",
    description:
      "Sets the status of up to 200 inbox items, all or nothing: resolved closes, in_progress reopens, ignored sets " +
      "aside. A move the inbox does not allow is 409 INVALID_TRANSITION. Needs read:reviews and read:feedback.",
    scopes: ["write:inbox"],
    describe: { itemIds: "from inbox.list" },
  },
  console: {},
  handler: async (ctx, input) => {
    assertKindVisible(ctx.scopes, undefined);
    return bulkSetInboxStatus(ctx, input as { itemIds: string[]; status: (typeof input)["status"] });
  },
});

export const getInboxItemOperation = defineOperation({
  // inbox.get is the MCP tool below (the spec's input names the item's type)
  name: "inbox.get-item",
  operationId: "getInboxItem",
  method: "get",
  path: "/v1/inbox/{id}",
  tags: ["Inbox"],
  summary: "An inbox item with notes, tags and the review's responses or the feedback",
  request: { params: InboxIdParam, query: InboxTypeQuery },
  output: InboxItemDetailSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:reviews", "read:feedback"],
  access: "read",
  console: {},
  handler: async (ctx, input) => {
    // a key or grant reads only the kinds its scopes cover (as inbox.list and inbox.get): another kind's item is
    // as absent as another tenant's
    const visible = visibleInboxTypes(ctx.scopes);
    if (input.type && !visible.includes(input.type)) throw notFound("Inbox item");
    const item = await getInboxItem(ctx, input.id, input.type);
    if (!visible.includes(item.type)) throw notFound("Inbox item");
    return item;
  },
});

// The item's own steps: REST keeps them to signed-in users (identity/scopes.ts), with no MCP door.

export const updateInboxItemOperation = defineOperation({
  name: "inbox.update",
  operationId: "updateInboxItem",
  method: "patch",
  path: "/v1/inbox/{id}",
  tags: ["Inbox"],
  summary: "Move an item's status (tenant_user)",
  description:
    "Allowed moves: new -> assigned|in_progress|responded|resolved|ignored; assigned -> new|in_progress|responded|resolved|ignored; " +
    "in_progress -> assigned|responded|resolved|ignored; responded -> in_progress|resolved; resolved -> in_progress; ignored -> new. " +
    "The same status is a no-op; anything else is 409 INVALID_TRANSITION. `assigned` needs an assignee; `new` clears it.",
  request: { params: InboxIdParam, body: PatchInboxBody },
  output: SuccessSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: [],
  minRole: "tenant_user",
  access: "write",
  idempotent: true,
  handler: async (ctx, { id, ...body }) => updateInboxItem(ctx, id, body),
});

export const addInboxNoteOperation = defineOperation({
  name: "inbox.add-note",
  operationId: "addInboxItemNote",
  method: "post",
  path: "/v1/inbox/{id}/notes",
  tags: ["Inbox"],
  summary: "Add an internal note (tenant_user)",
  request: { params: InboxIdParam, body: NoteInboxBody },
  output: SuccessSchema.extend({ noteId: z.string() }).openapi("InboxNoteAdded"),
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_user",
  access: "write",
  console: {},
  handler: async (ctx, { id, ...body }) => addInboxNote(ctx, id, body),
});

export const escalateInboxItemOperation = defineOperation({
  name: "inbox.escalate",
  operationId: "escalateInboxItem",
  method: "post",
  path: "/v1/inbox/{id}/escalate",
  tags: ["Inbox"],
  summary: "Escalate an item (tenant_user)",
  request: { params: InboxIdParam, body: EscalateInboxBody, bodyRequired: false },
  output: SuccessSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_user",
  access: "write",
  handler: async (ctx, { id, ...body }) => escalateInboxItem(ctx, id, body),
});

export const getInboxItemWithResponsesOperation = defineOperation({
  name: "inbox.get",
  summary: "Get one inbox item with its responses",
  description:
    "One inbox item with its notes and tags and, for a review, the review and its replies; for feedback, the answers. " +
    "itemId: the inbox item id (or the review or feedback id).",
  input: z.object({
    itemId: z.string().min(1).max(64),
    itemType: z.enum(INBOX_ITEM_TYPES),
  }),
  output: InboxItemDetailSchema,
  scopes: ["read:reviews", "read:feedback"],
  access: "read",
  variantOf: {
    operationId: "getInboxItem",
    why: "the spec's tool input names the item's type (itemType) beside its id; REST finds the kind from the id",
  },
  // outsider text: marked untrusted in results and the description (mcp/skills/untrusted.ts)
  untrusted: [
    "excerpt",
    "review.text",
    "review.authorName",
    "feedback.text",
    "feedback.followUpText",
    "feedback.surveyResponses",
    "responses[].text",
  ],
  mcp: { title: "Get one inbox item with its responses" },
  handler: async (ctx, input) => {
    // an item of a kind the scopes do not cover is as absent as another tenant's
    if (!visibleInboxTypes(ctx.scopes).includes(input.itemType)) throw notFound("Inbox item");
    return getInboxItem(ctx, input.itemId, input.itemType);
  },
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  listInboxOperation,
  assignInboxOperation,
  setInboxTagsOperation,
  setInboxStatusOperation,
  getInboxItemOperation,
  updateInboxItemOperation,
  addInboxNoteOperation,
  escalateInboxItemOperation,
  getInboxItemWithResponsesOperation,
];
