import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, json, jsonBody, type Router, stdErrorsWithNotFound, TENANT_SECURITY } from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canAdminister } from "../../middleware/tenant";
import { verifyEmailDomain } from "./domain-check";
import {
  EmailSettingsSchema,
  PutEmailSettingsBody,
  PutSmsSettingsBody,
  PutWhatsAppSettingsBody,
  SmsSettingsSchema,
  VerifyDomainBody,
  WhatsAppSettingsSchema,
} from "./schemas";
import {
  getEmailSettings,
  getSmsSettings,
  getWhatsAppSettings,
  putEmailSettings,
  putSmsSettings,
  putWhatsAppSettings,
} from "./service";
import { listWhatsAppTemplates, WhatsAppTemplateStateSchema } from "./whatsapp-templates";

const tags = ["Messaging settings"];
const base = { tags, security: TENANT_SECURITY };

const getEmail = createRoute({
  ...base,
  method: "get",
  path: "/v1/settings/email",
  summary: "The tenant's email provider settings (credentials never returned; 404 until set)",
  operationId: "getEmailSettings",
  responses: { 200: json(EmailSettingsSchema), ...stdErrorsWithNotFound },
});
const putEmail = createRoute({
  ...base,
  method: "put",
  path: "/v1/settings/email",
  summary: "Set the email provider, sender and write-only credentials (tenant_admin)",
  operationId: "updateEmailSettings",
  middleware: [canAdminister] as const,
  request: { body: jsonBody(PutEmailSettingsBody) },
  responses: { 200: json(EmailSettingsSchema), ...stdErrorsWithNotFound },
});
const verifyDomain = createRoute({
  ...base,
  method: "post",
  path: "/v1/settings/email/verify-domain",
  operationId: "verifyEmailDomain",
  summary:
    "Look up the sender domain's DKIM and DMARC records over DNS-over-HTTPS and record what was found (tenant_admin)",
  middleware: [canAdminister] as const,
  request: { body: { required: false, content: { "application/json": { schema: VerifyDomainBody } } } },
  responses: { 200: json(EmailSettingsSchema), ...stdErrorsWithNotFound },
});
const getSms = createRoute({
  ...base,
  method: "get",
  path: "/v1/settings/sms",
  summary: "The tenant's SMS provider settings (404 until set)",
  operationId: "getSmsSettings",
  responses: { 200: json(SmsSettingsSchema), ...stdErrorsWithNotFound },
});
const putSms = createRoute({
  ...base,
  method: "put",
  path: "/v1/settings/sms",
  summary: "Set the SMS provider and write-only credentials (tenant_admin)",
  operationId: "updateSmsSettings",
  middleware: [canAdminister] as const,
  request: { body: jsonBody(PutSmsSettingsBody) },
  responses: { 200: json(SmsSettingsSchema), ...stdErrorsWithNotFound },
});
const getWhatsApp = createRoute({
  ...base,
  method: "get",
  path: "/v1/settings/whatsapp",
  summary: "The tenant's WhatsApp provider settings (404 until set)",
  operationId: "getWhatsAppSettings",
  responses: { 200: json(WhatsAppSettingsSchema), ...stdErrorsWithNotFound },
});
const putWhatsApp = createRoute({
  ...base,
  method: "put",
  path: "/v1/settings/whatsapp",
  summary: "Set the WhatsApp provider and write-only credentials (tenant_admin)",
  operationId: "updateWhatsAppSettings",
  middleware: [canAdminister] as const,
  request: { body: jsonBody(PutWhatsAppSettingsBody) },
  responses: { 200: json(WhatsAppSettingsSchema), ...stdErrorsWithNotFound },
});

const listTemplates = createRoute({
  ...base,
  method: "get",
  path: "/v1/settings/whatsapp/templates",
  operationId: "listWhatsAppTemplates",
  summary:
    "WhatsApp templates as Meta last reported them (status and category from its template webhooks); sends stop while one is not sendable",
  responses: {
    200: json(z.object({ data: z.array(WhatsAppTemplateStateSchema) }).openapi("WhatsAppTemplateStateList")),
    ...stdErrorsWithNotFound,
  },
});

export const messagingSettingsRoutes: Router = createRouter()
  .openapi(getEmail, async (c) => c.json(await getEmailSettings(svc(c)), 200))
  .openapi(putEmail, async (c) => c.json(await putEmailSettings(svc(c), c.req.valid("json")), 200))
  .openapi(verifyDomain, async (c) => c.json(await verifyEmailDomain(svc(c), c.req.valid("json") ?? {}), 200))
  .openapi(getSms, async (c) => c.json(await getSmsSettings(svc(c)), 200))
  .openapi(putSms, async (c) => c.json(await putSmsSettings(svc(c), c.req.valid("json")), 200))
  .openapi(getWhatsApp, async (c) => c.json(await getWhatsAppSettings(svc(c)), 200))
  .openapi(putWhatsApp, async (c) => c.json(await putWhatsAppSettings(svc(c), c.req.valid("json")), 200))
  .openapi(listTemplates, async (c) => c.json(await listWhatsAppTemplates(svc(c)), 200));
