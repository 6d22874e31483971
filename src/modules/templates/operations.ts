import { z } from "@hono/zod-openapi";
import { errors, IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { previewContent, previewTemplate } from "./preview";
import {
  CreateTemplateBody,
  PreviewContentBody,
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
  getTemplate,
  listTemplates,
  updateTemplate,
} from "./service";
import { BUILTIN_TOKENS } from "./tokens";
import { variableOperations } from "./variables.operations";
import { customTokenKeys } from "./variables.service";

// The templates operations served by REST and agents alike (src/lib/operation.ts). Reads for
// read:campaigns; writes for people signed in (API keys reach no template write, identity/scopes.ts).

const tags = ["Templates"];
const TOKENS_NOTE =
  "Placeholders are {{token}}: firstName, lastName, fullName, locationName, brandName, reviewLink, feedbackLink, " +
  "unsubscribeLink, and the keys of the tenant's location variables. An unknown token is a 400 naming the field.";

export const listTemplatesOperation = defineOperation({
  name: "template.list",
  operationId: "listTemplates",
  method: "get",
  path: "/v1/templates",
  tags,
  summary: "List templates, newest first",
  request: { query: TemplateListQuery },
  output: paged(TemplateSchema).openapi("TemplatePage"),
  errors: stdErrors,
  scopes: ["read:campaigns"],
  access: "read",
  console: {},
  handler: async (ctx, input) => listTemplates(ctx, input),
});

export const createTemplateOperation = defineOperation({
  name: "template.create",
  operationId: "createTemplate",
  method: "post",
  path: "/v1/templates",
  tags,
  summary: "Create a draft template (tenant_user)",
  description: TOKENS_NOTE,
  request: { body: CreateTemplateBody },
  status: 201,
  output: TemplateSchema,
  errors: stdErrors,
  scopes: [],
  minRole: "tenant_user",
  access: "write",
  console: {},
  handler: async (ctx, input) => createTemplate(ctx, input),
});

export const updateTemplateOperation = defineOperation({
  name: "template.update",
  operationId: "updateTemplate",
  method: "patch",
  path: "/v1/templates/{id}",
  tags,
  summary: "Edit a template (tenant_user)",
  description:
    "A draft is edited in place. Editing an approved template creates the next version as a new draft (returned) and " +
    "leaves the approved one in use until the draft is approved. 409 CONFLICT when the template already has a draft " +
    "version; 409 INVALID_TRANSITION for an archived template. " +
    TOKENS_NOTE,
  request: { params: IdParam, body: UpdateTemplateBody },
  output: TemplateSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: [],
  minRole: "tenant_user",
  access: "write",
  console: {},
  handler: async (ctx, { id, ...patch }) => updateTemplate(ctx, id, patch),
});

export const approveTemplateOperation = defineOperation({
  name: "template.approve",
  operationId: "approveTemplate",
  method: "post",
  path: "/v1/templates/{id}/approve",
  tags,
  summary: "Approve a draft (manager)",
  description:
    "Only a draft can be approved (409 INVALID_TRANSITION otherwise). The previously approved version of the same " +
    "template is archived. Lint: known tokens only; email needs a subject and a body, sms/whatsapp need bodyText.",
  request: { params: IdParam },
  output: TemplateSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: [],
  minRole: "manager",
  access: "write",
  console: {},
  handler: async (ctx, input) => approveTemplate(ctx, input.id),
});

export const archiveTemplateOperation = defineOperation({
  name: "template.archive",
  operationId: "archiveTemplate",
  method: "post",
  path: "/v1/templates/{id}/archive",
  tags,
  summary: "Archive a template from any state (manager)",
  request: { params: IdParam },
  output: TemplateSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "manager",
  access: "write",
  idempotent: true,
  console: {},
  handler: async (ctx, input) => archiveTemplate(ctx, input.id),
});

export const previewTemplateOperation = defineOperation({
  name: "template.preview",
  operationId: "previewTemplate",
  method: "get",
  path: "/v1/templates/{id}/preview",
  tags,
  summary: "Render with sample values",
  description:
    "Sample contact Jane Doe and sample links; with locationId, that location's name, brand and variables. Values " +
    "are HTML-escaped in html. Email gets the unsubscribe link appended when {{unsubscribeLink}} is absent; sms gets " +
    "the opt-out text and its segment count.",
  request: { params: IdParam, query: PreviewQuery },
  output: PreviewSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:campaigns"],
  access: "read",
  console: {},
  handler: async (ctx, input) => previewTemplate(ctx, input.id, input.locationId),
});

export const createTemplateVersionOperation = defineOperation({
  name: "template.fork",
  operationId: "createTemplateVersion",
  method: "post",
  path: "/v1/templates/{id}/version",
  tags,
  summary: "Fork an approved template into a new draft version (tenant_user)",
  request: { params: IdParam },
  status: 201,
  output: TemplateSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: [],
  minRole: "tenant_user",
  access: "write",
  console: {},
  handler: async (ctx, input) => forkTemplateVersion(ctx, input.id),
});

export const getTemplateOperation = defineOperation({
  name: "template.get",
  operationId: "getTemplate",
  method: "get",
  path: "/v1/templates/{id}",
  tags,
  summary: "Get a template",
  description: "One message template: channel, status, subject, HTML and text bodies, tokens.",
  request: { params: IdParam },
  output: TemplateSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:campaigns"],
  access: "read",
  agent: { scopes: ["read:campaigns"], rename: { id: "templateId" } },
  console: {},
  handler: async (ctx, input) => getTemplate(ctx, input.id),
});

export const templateTokensOperation = defineOperation({
  name: "template.tokens",
  summary: "The {{tokens}} templates may use: the built-in ones and the tenant's location variables.",
  input: z.object({}),
  output: z.object({ builtin: z.array(z.string()), custom: z.array(z.string()) }),
  scopes: ["read:campaigns"],
  access: "read",
  // for the agents that write templates: no REST route
  agent: { scopes: ["read:campaigns"] },
  handler: async (ctx) => ({ builtin: [...BUILTIN_TOKENS], custom: await customTokenKeys(ctx) }),
});

export const previewTemplateContentOperation = defineOperation({
  name: "template.preview-content",
  operationId: "previewTemplateContent",
  method: "post",
  path: "/v1/templates/preview",
  tags,
  summary: "Render content not saved yet (an editor's live preview)",
  description:
    "Renders the subject and bodies given for a channel as GET /v1/templates/{id}/preview renders a saved template: " +
    "sample contact Jane Doe, sample links, with locationId that location's name, brand and variables; SMS with " +
    "the opt-out text and its segments. An unknown token is the 400 saving the content would answer. Nothing is stored.",
  request: { body: PreviewContentBody },
  output: PreviewSchema,
  errors: stdErrors,
  // a POST under /v1/templates: API keys reach no template write (identity/scopes.ts); people of any role preview
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => previewContent(ctx, input),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  listTemplatesOperation,
  createTemplateOperation,
  getTemplateOperation,
  updateTemplateOperation,
  approveTemplateOperation,
  archiveTemplateOperation,
  previewTemplateOperation,
  createTemplateVersionOperation,
  templateTokensOperation,
  previewTemplateContentOperation,
  ...variableOperations,
];
