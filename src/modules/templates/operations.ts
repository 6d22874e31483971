import { IdParam, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation } from "../../lib/operation";
import { TemplateSchema } from "./schemas";
import { getTemplate } from "./service";

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
