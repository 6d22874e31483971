import { z } from "@hono/zod-openapi";
import { errors, IdParam, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, noContent, type Operation } from "../../lib/operation";
import { BindingParams, BindingSchema, CreateBindingBody } from "./bindings.schemas";
import { createBinding, deleteBinding, listBindings } from "./bindings.service";

// A campaign's template bindings in the catalogue (src/lib/operation.ts): reads for read:campaigns,
// writes for a manager signed in (API keys may not write campaigns, identity/scopes.ts).

const tags = ["Campaigns"];

export const listCampaignTemplatesOperation = defineOperation({
  name: "campaign.templates",
  operationId: "listCampaignTemplates",
  method: "get",
  path: "/v1/campaigns/{id}/templates",
  tags,
  summary: "Template bindings, by channel then priority (highest first)",
  request: { params: IdParam },
  output: z.array(BindingSchema),
  errors: stdErrorsWithNotFound,
  scopes: ["read:campaigns"],
  access: "read",
  console: {},
  handler: async (ctx, input) => listBindings(ctx, input.id),
});

export const addCampaignTemplateOperation = defineOperation({
  name: "campaign.bind-template",
  operationId: "addCampaignTemplate",
  method: "post",
  path: "/v1/campaigns/{id}/templates",
  tags,
  summary: "Bind a template (manager)",
  description:
    "The template must be this tenant's, not archived, on the binding's channel, which must be one of the campaign's. " +
    "A draft may be bound: sends use the approved version of the bound template's lineage, so a lineage with no " +
    "approved version is skipped at send. 409 when the same template is already bound for that channel, locale and variant.",
  request: { params: IdParam, body: CreateBindingBody },
  status: 201,
  output: BindingSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: [],
  minRole: "manager",
  access: "write",
  console: {},
  handler: async (ctx, { id, ...body }) => createBinding(ctx, id, body),
});

export const removeCampaignTemplateOperation = defineOperation({
  name: "campaign.unbind-template",
  operationId: "removeCampaignTemplate",
  method: "delete",
  path: "/v1/campaigns/{id}/templates/{bindingId}",
  tags,
  summary: "Remove a binding (manager)",
  request: { params: BindingParams },
  status: 204,
  statusText: "Deleted",
  output: noContent,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "manager",
  access: "write",
  destructive: true,
  console: {},
  handler: async (ctx, input) => {
    await deleteBinding(ctx, input.id, input.bindingId);
  },
});

/** Spread into the campaigns module's operations (campaigns/operations.ts). */
export const operations: Operation[] = [
  listCampaignTemplatesOperation,
  addCampaignTemplateOperation,
  removeCampaignTemplateOperation,
];
