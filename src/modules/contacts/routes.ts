import { createRoute } from "@hono/zod-openapi";
import {
  createRouter,
  errors,
  json,
  jsonBody,
  stdErrors,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canAdminister, canManage, canWrite } from "../../middleware/tenant";
import { eraseContact, exportContact } from "./privacy";
import { ContactExportSchema, ContactIdParam, ContactSchema, UpsertContactBody } from "./schemas";
import { getContact, unsuppressContact, upsertContact } from "./service";

const tags = ["Contacts"];
const base = { tags, security: TENANT_SECURITY };

const upsert = createRoute({
  ...base,
  method: "post",
  path: "/v1/contacts",
  summary: "Create or update a contact, matched on email, else phone (tenant_user)",
  operationId: "createContact",
  middleware: [canWrite] as const,
  request: { body: jsonBody(UpsertContactBody) },
  responses: { 201: json(ContactSchema, "Created or updated"), ...stdErrors, 409: errors[409] },
});

const get = createRoute({
  ...base,
  method: "get",
  path: "/v1/contacts/{id}",
  operationId: "getContact",
  summary: "Get a contact",
  request: { params: ContactIdParam },
  responses: { 200: json(ContactSchema), ...stdErrorsWithNotFound },
});

const unsuppress = createRoute({
  ...base,
  method: "delete",
  path: "/v1/contacts/{id}/suppress",
  summary: "Lift a suppression (tenant_user)",
  operationId: "unsuppressContact",
  middleware: [canWrite] as const,
  request: { params: ContactIdParam },
  responses: { 200: json(ContactSchema), ...stdErrorsWithNotFound, 409: errors[409] },
});

const exportData = createRoute({
  ...base,
  method: "get",
  path: "/v1/contacts/{id}/export",
  operationId: "exportContact",
  summary: "Data-subject export (GDPR art. 15/20) when allowDataExport is on (manager)",
  middleware: [canManage] as const,
  request: { params: ContactIdParam },
  responses: { 200: json(ContactExportSchema), ...stdErrorsWithNotFound },
});

const erase = createRoute({
  ...base,
  method: "delete",
  path: "/v1/contacts/{id}",
  operationId: "eraseContact",
  summary: "Erase a contact's personal data (GDPR art. 17) when allowDataDeletion is on (tenant_admin)",
  description:
    "Personal fields are wiped and the contact stays as an anonymous, permanently suppressed row, so counts stay.",
  middleware: [canAdminister] as const,
  request: { params: ContactIdParam },
  responses: { 200: json(ContactSchema), ...stdErrorsWithNotFound, 409: errors[409] },
});

export const contactRoutes = createRouter()
  .openapi(upsert, async (c) => c.json(await upsertContact(svc(c), c.req.valid("json")), 201))
  .openapi(get, async (c) => c.json(await getContact(svc(c), c.req.valid("param").id), 200))
  .openapi(unsuppress, async (c) => c.json(await unsuppressContact(svc(c), c.req.valid("param").id), 200))
  .openapi(exportData, async (c) => c.json(await exportContact(svc(c), c.req.valid("param").id), 200))
  .openapi(erase, async (c) => c.json(await eraseContact(svc(c), c.req.valid("param").id), 200));
