import { z } from "@hono/zod-openapi";
import { IdParam, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { previewContent } from "./preview";
import { PreviewContentBody, PreviewSchema, TemplateSchema } from "./schemas";
import { getTemplate } from "./service";
import { BUILTIN_TOKENS } from "./tokens";
import { variableOperations } from "./variables.operations";
import { customTokenKeys } from "./variables.service";

// The templates operations served by REST and agents alike (src/lib/operation.ts).

export const getTemplateOperation = defineOperation({
  name: "template.get",
  operationId: "getTemplate",
  method: "get",
  path: "/v1/templates/{id}",
  tags: ["Templates"],
  summary: "Get a template",
  description: "One message template: channel, status, subject, HTML and text bodies, tokens.",
  request: { params: IdParam },
  output: TemplateSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:campaigns"],
  access: "read",
  agent: { scopes: ["read:campaigns"], rename: { id: "templateId" } },
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
  tags: ["Templates"],
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
  handler: async (ctx, input) => previewContent(ctx, input),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  getTemplateOperation,
  templateTokensOperation,
  previewTemplateContentOperation,
  ...variableOperations,
];
