import { errors, IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, noContent, type Operation } from "../../lib/operation";
import { testIntegration } from "./connection-test";
import { requestCrmImport } from "./crm-import";
import {
  ConnectionTestSchema,
  CreateIntegrationBody,
  CrmImportAcceptedSchema,
  CrmImportParams,
  IntegrationListQuery,
  IntegrationSchema,
  UpdateIntegrationBody,
} from "./schemas";
import { createIntegration, deleteIntegration, getIntegration, listIntegrations, updateIntegration } from "./service";

// The integrations (review sites and CRMs) in the catalogue (src/lib/operation.ts): REST only; closed to API
// keys (no scope admits them: src/modules/identity/scopes.ts), reads for every role, changes for tenant_admin.

const tags = ["Integrations"];

export const listIntegrationsOperation = defineOperation({
  name: "integration.list",
  operationId: "listIntegrations",
  method: "get",
  path: "/v1/integrations",
  tags,
  summary: "List integrations (credentials are never returned)",
  request: { query: IntegrationListQuery },
  output: paged(IntegrationSchema).openapi("IntegrationPage"),
  errors: stdErrors,
  scopes: [],
  access: "read",
  console: {},
  handler: (ctx, input) => listIntegrations(ctx, input),
});

export const createIntegrationOperation = defineOperation({
  name: "integration.create",
  operationId: "createIntegration",
  method: "post",
  path: "/v1/integrations",
  tags,
  summary: "Connect a review site (tenant_admin)",
  request: { body: CreateIntegrationBody },
  status: 201,
  output: IntegrationSchema,
  errors: stdErrors,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  console: {},
  handler: (ctx, input) => createIntegration(ctx, input),
});

export const getIntegrationOperation = defineOperation({
  name: "integration.get",
  operationId: "getIntegration",
  method: "get",
  path: "/v1/integrations/{id}",
  tags,
  summary: "Get an integration",
  request: { params: IdParam },
  output: IntegrationSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: (ctx, input) => getIntegration(ctx, input.id),
});

export const updateIntegrationOperation = defineOperation({
  name: "integration.update",
  operationId: "updateIntegration",
  method: "patch",
  path: "/v1/integrations/{id}",
  tags,
  summary: "Update an integration; config and credentials are replaced whole (tenant_admin)",
  request: { params: IdParam, body: UpdateIntegrationBody },
  output: IntegrationSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  console: {},
  handler: (ctx, { id, ...patch }) => updateIntegration(ctx, id, patch),
});

export const deleteIntegrationOperation = defineOperation({
  name: "integration.delete",
  operationId: "deleteIntegration",
  method: "delete",
  path: "/v1/integrations/{id}",
  tags,
  summary: "Disconnect and delete (tenant_admin)",
  request: { params: IdParam },
  status: 204,
  statusText: "Deleted",
  output: noContent,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  destructive: true,
  console: {},
  handler: async (ctx, input) => {
    await deleteIntegration(ctx, input.id);
  },
});

export const testIntegrationOperation = defineOperation({
  name: "integration.test",
  operationId: "testIntegration",
  method: "post",
  path: "/v1/integrations/{id}/test",
  tags,
  summary: "Check the stored credentials with one read against the provider (tenant_admin); a refusal is ok false",
  request: { params: IdParam },
  output: ConnectionTestSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  idempotent: true,
  openWorld: true,
  console: {},
  handler: (ctx, input) => testIntegration(ctx, input.id),
});

// a contacts path (an API key needs write:contacts), owned here: the import reads the integration's CRM
export const importContactsFromCrmOperation = defineOperation({
  name: "integration.import-crm-contacts",
  operationId: "importContactsFromCrm",
  method: "post",
  path: "/v1/contacts/import/crm/{integrationId}",
  tags: ["Contacts"],
  summary:
    "Import contacts from a HubSpot or Salesforce integration as a background job; poll GET /v1/jobs/{jobId} (tenant_user)",
  request: { params: CrmImportParams },
  status: 202,
  statusText: "Queued",
  output: CrmImportAcceptedSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: ["write:contacts"],
  minRole: "tenant_user",
  access: "write",
  openWorld: true,
  handler: (ctx, input) => requestCrmImport(ctx, input.integrationId),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  importContactsFromCrmOperation,
  listIntegrationsOperation,
  createIntegrationOperation,
  getIntegrationOperation,
  updateIntegrationOperation,
  deleteIntegrationOperation,
  testIntegrationOperation,
];
