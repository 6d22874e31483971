import { createRoute } from "@hono/zod-openapi";
import {
  createRouter,
  errors,
  IdParam,
  json,
  jsonBody,
  paged,
  type Router,
  stdErrors,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canManage, canWrite } from "../../middleware/tenant";
import { previewTemplate } from "./preview";
import {
  CreateTemplateBody,
  PreviewQuery,
  PreviewSchema,
  TemplateListQuery,
  TemplateSchema,
  UpdateTemplateBody,
} from "./schemas";
import {
  approveTemplate,
  archiveTemplate,
  createTemplate,
  forkTemplateVersion,
  listTemplates,
  updateTemplate,
} from "./service";

const tags = ["Templates"];
const TOKENS_NOTE =
  "Placeholders are {{token}}: firstName, lastName, fullName, locationName, brandName, reviewLink, feedbackLink, " +
  "unsubscribeLink, and the keys of the tenant's location variables. An unknown token is a 400 naming the field.";

const list = createRoute({
  method: "get",
  path: "/v1/templates",
  tags,
  security: TENANT_SECURITY,
  summary: "List templates, newest first",
  operationId: "listTemplates",
  request: { query: TemplateListQuery },
  responses: { 200: json(paged(TemplateSchema).openapi("TemplatePage")), ...stdErrors },
});

const create = createRoute({
  method: "post",
  path: "/v1/templates",
  tags,
  security: TENANT_SECURITY,
  summary: "Create a draft template (tenant_user)",
  operationId: "createTemplate",
  description: TOKENS_NOTE,
  middleware: [canWrite] as const,
  request: { body: jsonBody(CreateTemplateBody) },
  responses: { 201: json(TemplateSchema, "Created"), ...stdErrors },
});

const update = createRoute({
  method: "patch",
  path: "/v1/templates/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Edit a template (tenant_user)",
  operationId: "updateTemplate",
  description:
    "A draft is edited in place. Editing an approved template creates the next version as a new draft (returned) and " +
    "leaves the approved one in use until the draft is approved. 409 CONFLICT when the template already has a draft " +
    "version; 409 INVALID_TRANSITION for an archived template. " +
    TOKENS_NOTE,
  middleware: [canWrite] as const,
  request: { params: IdParam, body: jsonBody(UpdateTemplateBody) },
  responses: { 200: json(TemplateSchema), ...stdErrorsWithNotFound, 409: errors[409] },
});

const approve = createRoute({
  method: "post",
  path: "/v1/templates/{id}/approve",
  tags,
  security: TENANT_SECURITY,
  summary: "Approve a draft (manager)",
  operationId: "approveTemplate",
  description:
    "Only a draft can be approved (409 INVALID_TRANSITION otherwise). The previously approved version of the same " +
    "template is archived. Lint: known tokens only; email needs a subject and a body, sms/whatsapp need bodyText.",
  middleware: [canManage] as const,
  request: { params: IdParam },
  responses: { 200: json(TemplateSchema), ...stdErrorsWithNotFound, 409: errors[409] },
});

const archive = createRoute({
  method: "post",
  path: "/v1/templates/{id}/archive",
  tags,
  security: TENANT_SECURITY,
  summary: "Archive a template from any state (manager)",
  operationId: "archiveTemplate",
  middleware: [canManage] as const,
  request: { params: IdParam },
  responses: { 200: json(TemplateSchema), ...stdErrorsWithNotFound },
});

const preview = createRoute({
  method: "get",
  path: "/v1/templates/{id}/preview",
  tags,
  security: TENANT_SECURITY,
  summary: "Render with sample values",
  operationId: "previewTemplate",
  description:
    "Sample contact Jane Doe and sample links; with locationId, that location's name, brand and variables. Values " +
    "are HTML-escaped in html. Email gets the unsubscribe link appended when {{unsubscribeLink}} is absent; sms gets " +
    "the opt-out text and its segment count.",
  request: { params: IdParam, query: PreviewQuery },
  responses: { 200: json(PreviewSchema), ...stdErrorsWithNotFound },
});

const fork = createRoute({
  method: "post",
  path: "/v1/templates/{id}/version",
  tags,
  security: TENANT_SECURITY,
  summary: "Fork an approved template into a new draft version (tenant_user)",
  operationId: "createTemplateVersion",
  middleware: [canWrite] as const,
  request: { params: IdParam },
  responses: { 201: json(TemplateSchema, "Created"), ...stdErrorsWithNotFound, 409: errors[409] },
});

export const templateRoutes: Router = createRouter()
  .openapi(list, async (c) => c.json(await listTemplates(svc(c), c.req.valid("query")), 200))
  .openapi(create, async (c) => c.json(await createTemplate(svc(c), c.req.valid("json")), 201))
  .openapi(update, async (c) => c.json(await updateTemplate(svc(c), c.req.valid("param").id, c.req.valid("json")), 200))
  .openapi(approve, async (c) => c.json(await approveTemplate(svc(c), c.req.valid("param").id), 200))
  .openapi(archive, async (c) => c.json(await archiveTemplate(svc(c), c.req.valid("param").id), 200))
  .openapi(preview, async (c) =>
    c.json(await previewTemplate(svc(c), c.req.valid("param").id, c.req.valid("query").locationId), 200),
  )
  .openapi(fork, async (c) => c.json(await forkTemplateVersion(svc(c), c.req.valid("param").id), 201));
