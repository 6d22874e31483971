import { createRoute, z } from "@hono/zod-openapi";
import {
  createRouter,
  errors,
  json,
  jsonBody,
  type Router,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canWrite } from "../../middleware/tenant";
import { grantConsent, listConsent, revokeConsent } from "./consent";
import { ConsentChannelParam, ConsentRecordSchema, ContactIdParam, GrantConsentBody } from "./schemas";

const base = { tags: ["Contacts"], security: TENANT_SECURITY };

const list = createRoute({
  ...base,
  method: "get",
  path: "/v1/contacts/{id}/consent",
  summary: "Consent history, oldest first; the latest per channel is current",
  operationId: "listContactConsent",
  request: { params: ContactIdParam },
  responses: { 200: json(z.array(ConsentRecordSchema)), ...stdErrorsWithNotFound },
});

const grant = createRoute({
  ...base,
  method: "post",
  path: "/v1/contacts/{id}/consent",
  summary: "Record a consent grant (tenant_user)",
  operationId: "grantContactConsent",
  middleware: [canWrite] as const,
  request: { params: ContactIdParam, body: jsonBody(GrantConsentBody) },
  responses: { 201: json(ConsentRecordSchema, "Recorded"), ...stdErrorsWithNotFound, 409: errors[409] },
});

const revoke = createRoute({
  ...base,
  method: "delete",
  path: "/v1/contacts/{id}/consent/{channel}",
  summary: "Record a consent revocation (tenant_user)",
  operationId: "revokeContactConsent",
  middleware: [canWrite] as const,
  request: { params: ConsentChannelParam },
  responses: { 200: json(ConsentRecordSchema), ...stdErrorsWithNotFound, 409: errors[409] },
});

export const consentRoutes: Router = createRouter()
  .openapi(list, async (c) => c.json(await listConsent(svc(c), c.req.valid("param").id), 200))
  .openapi(grant, async (c) => c.json(await grantConsent(svc(c), c.req.valid("param").id, c.req.valid("json")), 201))
  .openapi(revoke, async (c) => {
    const { id, channel } = c.req.valid("param");
    return c.json(await revokeConsent(svc(c), id, channel), 200);
  });
