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
import { canAdminister, canWrite } from "../../middleware/tenant";
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

const tags = ["Integrations"];

const list = createRoute({
  method: "get",
  path: "/v1/integrations",
  tags,
  security: TENANT_SECURITY,
  summary: "List integrations (credentials are never returned)",
  operationId: "listIntegrations",
  request: { query: IntegrationListQuery },
  responses: { 200: json(paged(IntegrationSchema).openapi("IntegrationPage")), ...stdErrors },
});

const create = createRoute({
  method: "post",
  path: "/v1/integrations",
  tags,
  security: TENANT_SECURITY,
  summary: "Connect a review site (tenant_admin)",
  operationId: "createIntegration",
  middleware: [canAdminister] as const,
  request: { body: jsonBody(CreateIntegrationBody) },
  responses: { 201: json(IntegrationSchema, "Created"), ...stdErrors },
});

const get = createRoute({
  method: "get",
  path: "/v1/integrations/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Get an integration",
  operationId: "getIntegration",
  request: { params: IdParam },
  responses: { 200: json(IntegrationSchema), ...stdErrorsWithNotFound },
});

const update = createRoute({
  method: "patch",
  path: "/v1/integrations/{id}",
  operationId: "updateIntegration",
  tags,
  security: TENANT_SECURITY,
  summary: "Update an integration; config and credentials are replaced whole (tenant_admin)",
  middleware: [canAdminister] as const,
  request: { params: IdParam, body: jsonBody(UpdateIntegrationBody) },
  responses: { 200: json(IntegrationSchema), ...stdErrorsWithNotFound },
});

const remove = createRoute({
  method: "delete",
  path: "/v1/integrations/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Disconnect and delete (tenant_admin)",
  operationId: "deleteIntegration",
  middleware: [canAdminister] as const,
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...stdErrorsWithNotFound },
});

const test = createRoute({
  method: "post",
  path: "/v1/integrations/{id}/test",
  operationId: "testIntegration",
  tags,
  security: TENANT_SECURITY,
  summary: "Check the stored credentials with one read against the provider (tenant_admin); a refusal is ok false",
  middleware: [canAdminister] as const,
  request: { params: IdParam },
  responses: { 200: json(ConnectionTestSchema), ...stdErrorsWithNotFound },
});

const crmImport = createRoute({
  method: "post",
  path: "/v1/contacts/import/crm/{integrationId}",
  tags: ["Contacts"],
  security: TENANT_SECURITY,
  operationId: "importContactsFromCrm",
  summary:
    "Import contacts from a HubSpot or Salesforce integration as a background job; poll GET /v1/jobs/{jobId} (tenant_user)",
  middleware: [canWrite] as const,
  request: { params: CrmImportParams },
  responses: { 202: json(CrmImportAcceptedSchema, "Queued"), ...stdErrorsWithNotFound, 409: errors[409] },
});

export const integrationRoutes: Router = createRouter()
  .openapi(list, async (c) => c.json(await listIntegrations(svc(c), c.req.valid("query")), 200))
  .openapi(create, async (c) => c.json(await createIntegration(svc(c), c.req.valid("json")), 201))
  .openapi(get, async (c) => c.json(await getIntegration(svc(c), c.req.valid("param").id), 200))
  .openapi(update, async (c) =>
    c.json(await updateIntegration(svc(c), c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(remove, async (c) => {
    await deleteIntegration(svc(c), c.req.valid("param").id);
    return c.body(null, 204);
  })
  .openapi(test, async (c) => c.json(await testIntegration(svc(c), c.req.valid("param").id), 200))
  .openapi(crmImport, async (c) => c.json(await requestCrmImport(svc(c), c.req.valid("param").integrationId), 202));
