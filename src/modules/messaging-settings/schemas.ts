import { z } from "@hono/zod-openapi";
import { DOMAIN_STATUSES, type DomainCheck, MESSAGE_CHANNELS, type MessagingSettingsRow } from "../../db/schema";
import { DateTime } from "../../lib/openapi";
import { Email } from "../../lib/validators";
import { EMAIL_PROVIDERS, SMS_PROVIDERS, WHATSAPP_PROVIDERS } from "../../providers/messaging/catalog";

const DomainStatus = z.enum(DOMAIN_STATUSES);
const E164 = z
  .string()
  .regex(/^\+[1-9]\d{6,14}$/, "E.164 phone number, e.g. +15551234567")
  .openapi({ example: "+15551234567" });
const Hostname = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, "A domain name, e.g. mail.example.com");
const Selector = z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62})$/, "A DKIM selector");

export const ProviderOptionsSchema = z
  .object({
    region: z
      .string()
      .regex(/^[a-z]{2}(-[a-z]+)+-\d$/, "An AWS region, e.g. us-east-1")
      .describe("ses"),
    configurationSetName: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/)
      .describe("ses"),
    snsTopicArn: z
      .string()
      .regex(/^arn:aws(-[a-z]+)?:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/, "An SNS topic ARN")
      .describe("ses: the topic SES publishes events to; webhooks from other topics are refused"),
    dkimTokens: z
      .array(z.string().regex(/^[a-z0-9]{1,63}$/))
      .max(10)
      .describe("ses: Easy DKIM tokens, used as selectors by verify-domain"),
    dkimSelectors: z
      .array(Selector)
      .min(1)
      .max(10)
      .describe("any email provider: selectors verify-domain looks up instead of the provider's"),
    endpoint: z
      .url({ protocol: /^https$/, hostname: /^([a-z0-9-]+\.){1,2}communication\.azure\.(com|us|cn)$/ })
      .describe("acs: https://{resource}.{geo}.communication.azure.com"),
    host: Hostname.describe("smtp"),
    port: z
      .number()
      .int()
      .min(1)
      .max(65535)
      .refine((p) => p !== 25, "Port 25 is blocked on Workers: use 587 (STARTTLS) or 465 (TLS)")
      .describe("smtp"),
    security: z.enum(["tls", "starttls"]).describe("smtp: tls (465) or starttls (587, default)"),
    accountSid: z
      .string()
      .regex(/^AC[0-9a-f]{32}$/, "A Twilio Account SID (AC...)")
      .describe("twilio"),
    messagingServiceSid: z
      .string()
      .regex(/^MG[0-9a-f]{32}$/, "A Twilio Messaging Service SID (MG...)")
      .describe("twilio sms"),
    apiVersion: z
      .string()
      .regex(/^v\d+\.\d+$/, "A Graph API version, e.g. v21.0")
      .describe("meta"),
  })
  .partial()
  .strict()
  .openapi("ProviderOptions", {
    description: "Non-secret provider options; which apply depends on the provider (docs/messaging.md).",
  });

const secret = z.string().min(1).max(4096).nullable().optional();

export const ProviderCredentialsSchema = z
  .object({
    apiKey: secret.describe("sendgrid"),
    webhookVerificationKey: secret.describe("sendgrid: the signed Event Webhook verification key"),
    accessKeyId: secret.describe("ses"),
    secretAccessKey: secret.describe("ses"),
    accessKey: secret.describe("acs: the resource access key"),
    webhookSecret: secret.describe("acs: the secret the Event Grid subscription sends"),
    username: secret.describe("smtp"),
    password: secret.describe("smtp"),
    authToken: secret.describe("twilio"),
    accessToken: secret.describe("meta: a system user access token"),
    appSecret: secret.describe("meta: signs webhooks (X-Hub-Signature-256)"),
    verifyToken: secret.describe("meta: echoed in the webhook GET verification"),
  })
  .strict()
  .openapi("ProviderCredentials", {
    description:
      "Write-only. Merged into the stored set while the provider stays the same (null removes a key); replaced when it changes.",
  });

const DomainCheckSchema = z
  .object({
    checkedAt: DateTime,
    dkim: z.array(
      z.object({ selector: z.string(), name: z.string(), status: DomainStatus, record: z.string().nullable() }),
    ),
    dmarc: z.object({ name: z.string(), status: DomainStatus, record: z.string().nullable() }),
    error: z.string().optional(),
  })
  .openapi("DomainCheck");

const common = {
  fallbackToPlatform: z.boolean(),
  options: z.record(z.string(), z.unknown()),
  credentialsSet: z
    .array(z.string())
    .openapi({ description: "Which credential fields are stored (values are never returned)", example: ["apiKey"] }),
  updatedAt: DateTime,
};

export const EmailSettingsSchema = z
  .object({
    provider: z.enum(EMAIL_PROVIDERS),
    fromAddress: z.string(),
    fromName: z.string(),
    replyToAddress: z.string().nullable(),
    senderDomain: z.string().nullable(),
    dkimStatus: DomainStatus,
    dmarcStatus: DomainStatus,
    domainCheck: DomainCheckSchema.nullable(),
    ...common,
  })
  .openapi("EmailSettings");

export const SmsSettingsSchema = z
  .object({ provider: z.enum(SMS_PROVIDERS), fromNumber: z.string().nullable(), ...common })
  .openapi("SmsSettings");

export const WhatsAppSettingsSchema = z
  .object({ provider: z.enum(WHATSAPP_PROVIDERS), channelRegistrationId: z.string().nullable(), ...common })
  .openapi("WhatsAppSettings");

const writable = {
  fallbackToPlatform: z.boolean().default(false),
  options: ProviderOptionsSchema.default({}),
  credentials: ProviderCredentialsSchema.optional(),
};

export const PutEmailSettingsBody = z
  .object({
    provider: z.enum(EMAIL_PROVIDERS),
    fromAddress: Email,
    fromName: z.string().trim().min(1).max(200),
    replyToAddress: Email.nullable().optional(),
    senderDomain: Hostname.nullable().optional().openapi({ description: "Defaults to the domain of fromAddress" }),
    ...writable,
  })
  .strict()
  .openapi("PutEmailSettingsRequest");

export const PutSmsSettingsBody = z
  .object({ provider: z.enum(SMS_PROVIDERS), fromNumber: E164.nullable().optional(), ...writable })
  .strict()
  .openapi("PutSmsSettingsRequest");

export const PutWhatsAppSettingsBody = z
  .object({
    provider: z.enum(WHATSAPP_PROVIDERS),
    channelRegistrationId: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .nullable()
      .optional()
      .openapi({ description: "meta: the phone number id; twilio: the WhatsApp sender number (E.164)" }),
    ...writable,
  })
  .strict()
  .openapi("PutWhatsAppSettingsRequest");

export const VerifyDomainBody = z
  .object({
    selectors: z
      .array(Selector)
      .min(1)
      .max(10)
      .optional()
      .openapi({ description: "DKIM selectors to look up this time, instead of the configured or provider ones" }),
  })
  .strict()
  .openapi("VerifyDomainRequest");

export type PutEmailSettings = z.infer<typeof PutEmailSettingsBody>;
export type PutSmsSettings = z.infer<typeof PutSmsSettingsBody>;
export type PutWhatsAppSettings = z.infer<typeof PutWhatsAppSettingsBody>;
export type ProviderCredentialsInput = z.infer<typeof ProviderCredentialsSchema>;

const shared = (r: MessagingSettingsRow) => ({
  fallbackToPlatform: r.fallbackToPlatform,
  options: r.options,
  credentialsSet: r.credentialFields,
  updatedAt: r.updatedAt,
});

export const toEmailSettings = (r: MessagingSettingsRow): z.infer<typeof EmailSettingsSchema> => ({
  provider: r.provider as z.infer<typeof EmailSettingsSchema>["provider"],
  fromAddress: r.config.fromAddress ?? "",
  fromName: r.config.fromName ?? "",
  replyToAddress: r.config.replyToAddress ?? null,
  senderDomain: r.config.senderDomain ?? null,
  dkimStatus: r.dkimStatus,
  dmarcStatus: r.dmarcStatus,
  domainCheck: (r.domainCheck as DomainCheck | null) ?? null,
  ...shared(r),
});

export const toSmsSettings = (r: MessagingSettingsRow): z.infer<typeof SmsSettingsSchema> => ({
  provider: r.provider as "twilio",
  fromNumber: r.config.fromNumber ?? null,
  ...shared(r),
});

export const toWhatsAppSettings = (r: MessagingSettingsRow): z.infer<typeof WhatsAppSettingsSchema> => ({
  provider: r.provider as z.infer<typeof WhatsAppSettingsSchema>["provider"],
  channelRegistrationId: r.config.channelRegistrationId ?? null,
  ...shared(r),
});

/** POST /v1/settings/messaging/test: a fixed test message to an address the caller gives (docs/messaging.md, "Test send"). */
export const TestSendBody = z
  .object({
    channel: z.enum(MESSAGE_CHANNELS),
    to: z.string().trim().min(1).max(320).openapi({
      description: "email: an email address; sms and whatsapp: an E.164 phone number",
      example: "owner@example.com",
    }),
    whatsappTemplate: z
      .object({
        name: z.string().min(1).max(512),
        language: z.string().min(2).max(15),
      })
      .strict()
      .optional()
      .openapi({
        description:
          "whatsapp only: an approved template to send (outside the 24-hour window WhatsApp accepts nothing else), without parameters",
      }),
  })
  .strict()
  .superRefine((b, issues) => {
    const ok = b.channel === "email" ? Email.safeParse(b.to).success : E164.safeParse(b.to).success;
    if (!ok)
      issues.addIssue({
        code: "custom",
        path: ["to"],
        message: b.channel === "email" ? "An email address" : "An E.164 phone number, e.g. +15551234567",
      });
    if (b.whatsappTemplate && b.channel !== "whatsapp")
      issues.addIssue({ code: "custom", path: ["whatsappTemplate"], message: "Only for the whatsapp channel" });
  })
  .openapi("MessagingTestSendRequest");

export const TestSendResultSchema = z
  .object({
    channel: z.enum(MESSAGE_CHANNELS),
    to: z.string(),
    provider: z
      .string()
      .openapi({ description: "the provider that took (or refused) it: outbox, sendgrid, twilio, ..." }),
    source: z.enum(["tenant", "platform", "dev_mailbox"]).openapi({
      description:
        "whose settings sent it: the tenant's own, the platform's (fallback), or none (the dev mailbox, GET /admin/outbox)",
    }),
    accepted: z.boolean().openapi({ description: "the provider accepted the message (not proof of delivery)" }),
    providerMessageId: z.string().nullable(),
    error: z
      .object({
        message: z.string(),
        status: z
          .number()
          .int()
          .nullable()
          .openapi({ description: "the provider's HTTP status, when it answered one" }),
        code: z.string().nullable().openapi({ description: "the provider rule it broke, when it is one" }),
        retryable: z.boolean(),
      })
      .nullable()
      .openapi({ description: "why the provider refused it (accepted false)" }),
    sentAt: DateTime,
  })
  .openapi("MessagingTestSendResult");

export type TestSendInput = z.infer<typeof TestSendBody>;
