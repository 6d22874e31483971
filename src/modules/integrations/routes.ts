import { createRoute } from "@hono/zod-openapi";
import { createRouter, IdParam, json, jsonBody, paged, stdErrors, stdErrorsWithNotFound, TENANT_SECURITY } from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canAdminister } from "../../middleware/tenant";
import { CreateIntegrationBody, IntegrationListQuery, IntegrationSchema, UpdateIntegrationBody } from "./schemas";
import { createIntegration, deleteIntegration, getIntegration, listIntegrations, updateIntegration } from "./service";

const tags = ["Integrations"];

const list = createRoute({
  method: "get", path: "/v1/integrations", tags, security: TENANT_SECURITY, summary: "List integrations (credentials are never returned)",
  request: { query: IntegrationListQuery },
  responses: { 200: json(paged(IntegrationSchema).openapi("IntegrationPage")), ...stdErrors },
});

const create = createRoute({
  method: "post", path: "/v1/integrations", tags, security: TENANT_SECURITY, summary: "Connect a review site (tenant_admin)",
  middleware: [canAdminister] as const,
  request: { body: jsonBody(CreateIntegrationBody) },
  responses: { 201: json(IntegrationSchema, "Created"), ...stdErrors },
});

const get = createRoute({
  method: "get", path: "/v1/integrations/{id}", tags, security: TENANT_SECURITY, summary: "Get an integration",
  request: { params: IdParam },
  responses: { 200: json(IntegrationSchema), ...stdErrorsWithNotFound },
});

const update = createRoute({
  method: "patch", path: "/v1/integrations/{id}", tags, security: TENANT_SECURITY,
  summary: "Update an integration; config and credentials are replaced whole (tenant_admin)",
  middleware: [canAdminister] as const,
  request: { params: IdParam, body: jsonBody(UpdateIntegrationBody) },
  responses: { 200: json(IntegrationSchema), ...stdErrorsWithNotFound },
});

const remove = createRoute({
  method: "delete", path: "/v1/integrations/{id}", tags, security: TENANT_SECURITY, summary: "Disconnect and delete (tenant_admin)",
  middleware: [canAdminister] as const,
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...stdErrorsWithNotFound },
});

export const integrationRoutes = createRouter()
  .openapi(list, async (c) => c.json(await listIntegrations(svc(c), c.req.valid("query")), 200))
  .openapi(create, async (c) => c.json(await createIntegration(svc(c), c.req.valid("json")), 201))
  .openapi(get, async (c) => c.json(await getIntegration(svc(c), c.req.valid("param").id), 200))
  .openapi(update, async (c) => c.json(await updateIntegration(svc(c), c.req.valid("param").id, c.req.valid("json")), 200))
  .openapi(remove, async (c) => {
    await deleteIntegration(svc(c), c.req.valid("param").id);
    return c.body(null, 204);
  });
