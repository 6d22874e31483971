import { createRoute, z } from "@hono/zod-openapi";
import {
  createRouter,
  errors,
  json,
  jsonBody,
  type Router,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canWrite } from "../../middleware/tenant";
import { addInboxNote, escalateInboxItem, updateInboxItem } from "./actions";
import {
  EscalateInboxBody,
  InboxIdParam,
  InboxItemDetailSchema,
  InboxTypeQuery,
  NoteInboxBody,
  PatchInboxBody,
  SuccessSchema,
} from "./schemas";
import { getInboxItem } from "./service";

const tags = ["Inbox"];
const write = { tags, security: TENANT_SECURITY };

const get = createRoute({
  method: "get",
  path: "/v1/inbox/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "An inbox item with notes, tags and the review's responses or the feedback",
  operationId: "getInboxItem",
  request: { params: InboxIdParam, query: InboxTypeQuery },
  responses: { 200: json(InboxItemDetailSchema), ...stdErrorsWithNotFound },
});

const patch = createRoute({
  method: "patch",
  path: "/v1/inbox/{id}",
  ...write,
  middleware: [canWrite] as const,
  summary: "Move an item's status (tenant_user)",
  operationId: "updateInboxItem",
  description:
    "Allowed moves: new -> assigned|in_progress|responded|resolved|ignored; assigned -> new|in_progress|responded|resolved|ignored; " +
    "in_progress -> assigned|responded|resolved|ignored; responded -> in_progress|resolved; resolved -> in_progress; ignored -> new. " +
    "The same status is a no-op; anything else is 409 INVALID_TRANSITION. `assigned` needs an assignee; `new` clears it.",
  request: { params: InboxIdParam, body: jsonBody(PatchInboxBody) },
  responses: { 200: json(SuccessSchema), ...stdErrorsWithNotFound, 409: errors[409] },
});

const notes = createRoute({
  method: "post",
  path: "/v1/inbox/{id}/notes",
  ...write,
  middleware: [canWrite] as const,
  summary: "Add an internal note (tenant_user)",
  operationId: "addInboxItemNote",
  request: { params: InboxIdParam, body: jsonBody(NoteInboxBody) },
  responses: {
    200: json(SuccessSchema.extend({ noteId: z.string() }).openapi("InboxNoteAdded")),
    ...stdErrorsWithNotFound,
  },
});

const escalate = createRoute({
  method: "post",
  path: "/v1/inbox/{id}/escalate",
  ...write,
  middleware: [canWrite] as const,
  summary: "Escalate an item (tenant_user)",
  operationId: "escalateInboxItem",
  request: {
    params: InboxIdParam,
    body: { required: false, content: { "application/json": { schema: EscalateInboxBody } } },
  },
  responses: { 200: json(SuccessSchema), ...stdErrorsWithNotFound },
});

export const inboxRoutes: Router = createRouter()
  .openapi(get, async (c) =>
    c.json(await getInboxItem(svc(c), c.req.valid("param").id, c.req.valid("query").type), 200),
  )
  .openapi(patch, async (c) => c.json(await updateInboxItem(svc(c), c.req.valid("param").id, c.req.valid("json")), 200))
  .openapi(notes, async (c) => c.json(await addInboxNote(svc(c), c.req.valid("param").id, c.req.valid("json")), 200))
  .openapi(escalate, async (c) =>
    c.json(await escalateInboxItem(svc(c), c.req.valid("param").id, c.req.valid("json") ?? {}), 200),
  );
