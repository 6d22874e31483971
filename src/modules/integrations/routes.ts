import { createRoute } from "@hono/zod-openapi";
import { createRouter, errors, json, type Router, stdErrorsWithNotFound, TENANT_SECURITY } from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canWrite } from "../../middleware/tenant";
import { requestCrmImport } from "./crm-import";
import { CrmImportAcceptedSchema, CrmImportParams } from "./schemas";

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

// The CRM contact import (importContactsFromCrm) is not in the catalogue yet; the integrations themselves are
// (./operations.ts).
export const integrationRoutes: Router = createRouter().openapi(crmImport, async (c) =>
  c.json(await requestCrmImport(svc(c), c.req.valid("param").integrationId), 202),
);
