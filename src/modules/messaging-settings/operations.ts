import { z } from "@hono/zod-openapi";
import { errors, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { verifyEmailDomain } from "./domain-check";
import {
  EmailSettingsSchema,
  PutEmailSettingsBody,
  PutSmsSettingsBody,
  PutWhatsAppSettingsBody,
  SmsSettingsSchema,
  TestSendBody,
  TestSendResultSchema,
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
import { sendTestMessage, TEST_SEND_LIMIT } from "./test-send";
import { listWhatsAppTemplates, WhatsAppTemplateStateSchema } from "./whatsapp-templates";

// The messaging settings operations declared once (src/lib/operation.ts); REST only: settings are closed to
// API keys (no scope admits them: src/modules/identity/scopes.ts), and a tool that sends a message to any
// address is not offered to assistants. Every role reads the settings (credentials are never returned);
// tenant_admin changes them.

const tags = ["Messaging settings"];

export const getEmailSettingsOperation = defineOperation({
  name: "messaging.email-settings",
  operationId: "getEmailSettings",
  method: "get",
  path: "/v1/settings/email",
  tags,
  summary: "The tenant's email provider settings (credentials never returned; 404 until set)",
  output: EmailSettingsSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: (ctx) => getEmailSettings(ctx),
});

export const updateEmailSettingsOperation = defineOperation({
  name: "messaging.email-settings.update",
  operationId: "updateEmailSettings",
  method: "put",
  path: "/v1/settings/email",
  tags,
  summary: "Set the email provider, sender and write-only credentials (tenant_admin)",
  request: { body: PutEmailSettingsBody },
  output: EmailSettingsSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  idempotent: true,
  console: {},
  handler: (ctx, input) => putEmailSettings(ctx, input),
});

export const verifyEmailDomainOperation = defineOperation({
  name: "messaging.email-domain.verify",
  operationId: "verifyEmailDomain",
  method: "post",
  path: "/v1/settings/email/verify-domain",
  tags,
  summary:
    "Look up the sender domain's DKIM and DMARC records over DNS-over-HTTPS and record what was found (tenant_admin)",
  request: { body: VerifyDomainBody, bodyRequired: false },
  output: EmailSettingsSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  openWorld: true,
  console: {},
  handler: (ctx, input) => verifyEmailDomain(ctx, input),
});

export const getSmsSettingsOperation = defineOperation({
  name: "messaging.sms-settings",
  operationId: "getSmsSettings",
  method: "get",
  path: "/v1/settings/sms",
  tags,
  summary: "The tenant's SMS provider settings (404 until set)",
  output: SmsSettingsSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: (ctx) => getSmsSettings(ctx),
});

export const updateSmsSettingsOperation = defineOperation({
  name: "messaging.sms-settings.update",
  operationId: "updateSmsSettings",
  method: "put",
  path: "/v1/settings/sms",
  tags,
  summary: "Set the SMS provider and write-only credentials (tenant_admin)",
  request: { body: PutSmsSettingsBody },
  output: SmsSettingsSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  idempotent: true,
  console: {},
  handler: (ctx, input) => putSmsSettings(ctx, input),
});

export const getWhatsAppSettingsOperation = defineOperation({
  name: "messaging.whatsapp-settings",
  operationId: "getWhatsAppSettings",
  method: "get",
  path: "/v1/settings/whatsapp",
  tags,
  summary: "The tenant's WhatsApp provider settings (404 until set)",
  output: WhatsAppSettingsSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: (ctx) => getWhatsAppSettings(ctx),
});

export const updateWhatsAppSettingsOperation = defineOperation({
  name: "messaging.whatsapp-settings.update",
  operationId: "updateWhatsAppSettings",
  method: "put",
  path: "/v1/settings/whatsapp",
  tags,
  summary: "Set the WhatsApp provider and write-only credentials (tenant_admin)",
  request: { body: PutWhatsAppSettingsBody },
  output: WhatsAppSettingsSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  idempotent: true,
  console: {},
  handler: (ctx, input) => putWhatsAppSettings(ctx, input),
});

export const listWhatsAppTemplatesOperation = defineOperation({
  name: "messaging.whatsapp-templates",
  operationId: "listWhatsAppTemplates",
  method: "get",
  path: "/v1/settings/whatsapp/templates",
  tags,
  summary:
    "WhatsApp templates as Meta last reported them (status and category from its template webhooks); sends stop while one is not sendable",
  output: z.object({ data: z.array(WhatsAppTemplateStateSchema) }).openapi("WhatsAppTemplateStateList"),
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: (ctx) => listWhatsAppTemplates(ctx),
});

export const testMessagingSettingsOperation = defineOperation({
  name: "messaging.test-send",
  operationId: "testMessagingSettings",
  method: "post",
  path: "/v1/settings/messaging/test",
  tags,
  summary: "Send a test message on a channel to an address you give (manager)",
  description:
    "Sends a fixed test message through the channel's provider as a review request would go (the tenant's own " +
    "settings, else the platform's, else the dev mailbox), to the given address. No contact or solicitation is " +
    "created. The answer says which provider took it, or what it refused with (accepted false, error): a provider's " +
    `refusal is the test's result, not an error of this call. At most ${TEST_SEND_LIMIT} per hour per business ` +
    "(429 RATE_LIMITED with Retry-After). Audited (the address masked).",
  request: { body: TestSendBody },
  output: TestSendResultSchema,
  errors: { ...stdErrors, 429: errors[429] },
  // settings are closed to API keys (src/modules/identity/scopes.ts)
  scopes: [],
  minRole: "manager",
  access: "write",
  openWorld: true,
  console: {},
  handler: (ctx, input) => sendTestMessage(ctx, input),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  getEmailSettingsOperation,
  updateEmailSettingsOperation,
  verifyEmailDomainOperation,
  getSmsSettingsOperation,
  updateSmsSettingsOperation,
  getWhatsAppSettingsOperation,
  updateWhatsAppSettingsOperation,
  listWhatsAppTemplatesOperation,
  testMessagingSettingsOperation,
];
