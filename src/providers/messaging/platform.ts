import type { ChannelConfig, MessageChannel } from "../../db/schema";
import type { Env } from "../../env";
import { missingFields } from "./catalog";
import type { ChannelSettings } from "./channel-settings";

type EnvKey = keyof Env & `PLATFORM_${string}`;

/** Which env var (a var or a secret) holds each option and credential of a platform provider. */
const PLATFORM_VARS: Record<string, { options: Record<string, EnvKey>; credentials: Record<string, EnvKey> }> = {
  "email:sendgrid": {
    options: {},
    credentials: {
      apiKey: "PLATFORM_SENDGRID_API_KEY",
      webhookVerificationKey: "PLATFORM_SENDGRID_WEBHOOK_PUBLIC_KEY",
    },
  },
  "email:ses": {
    options: {
      region: "PLATFORM_SES_REGION",
      configurationSetName: "PLATFORM_SES_CONFIGURATION_SET",
      snsTopicArn: "PLATFORM_SES_SNS_TOPIC_ARN",
    },
    credentials: { accessKeyId: "PLATFORM_SES_ACCESS_KEY_ID", secretAccessKey: "PLATFORM_SES_SECRET_ACCESS_KEY" },
  },
  "email:acs": {
    options: { endpoint: "PLATFORM_ACS_ENDPOINT" },
    credentials: { accessKey: "PLATFORM_ACS_ACCESS_KEY", webhookSecret: "PLATFORM_ACS_WEBHOOK_SECRET" },
  },
  "email:smtp": {
    options: { host: "PLATFORM_SMTP_HOST", port: "PLATFORM_SMTP_PORT", security: "PLATFORM_SMTP_SECURITY" },
    credentials: { username: "PLATFORM_SMTP_USERNAME", password: "PLATFORM_SMTP_PASSWORD" },
  },
  "email:cloudflare": { options: {}, credentials: {} },
  "sms:twilio": {
    options: {
      accountSid: "PLATFORM_TWILIO_ACCOUNT_SID",
      messagingServiceSid: "PLATFORM_TWILIO_MESSAGING_SERVICE_SID",
    },
    credentials: { authToken: "PLATFORM_TWILIO_AUTH_TOKEN" },
  },
  "whatsapp:twilio": {
    options: { accountSid: "PLATFORM_TWILIO_ACCOUNT_SID" },
    credentials: { authToken: "PLATFORM_TWILIO_AUTH_TOKEN" },
  },
  "whatsapp:meta": {
    options: { apiVersion: "PLATFORM_META_API_VERSION" },
    credentials: {
      accessToken: "PLATFORM_META_ACCESS_TOKEN",
      appSecret: "PLATFORM_META_APP_SECRET",
      verifyToken: "PLATFORM_META_VERIFY_TOKEN",
    },
  },
};

const PROVIDER_VAR: Record<MessageChannel, EnvKey> = {
  email: "PLATFORM_EMAIL_PROVIDER",
  sms: "PLATFORM_SMS_PROVIDER",
  whatsapp: "PLATFORM_WHATSAPP_PROVIDER",
};

const pick = (env: Env, vars: Record<string, EnvKey>) => {
  const out: Record<string, string> = {};
  for (const [field, name] of Object.entries(vars)) {
    const v = env[name];
    if (typeof v === "string" && v !== "") out[field] = v;
  }
  return out;
};

const channelConfig = (env: Env, channel: MessageChannel): ChannelConfig => {
  if (channel === "email") {
    return {
      fromAddress: env.PLATFORM_EMAIL_FROM_ADDRESS,
      fromName: env.PLATFORM_EMAIL_FROM_NAME,
      replyToAddress: env.PLATFORM_EMAIL_REPLY_TO ?? null,
    };
  }
  if (channel === "sms") return { fromNumber: env.PLATFORM_SMS_FROM_NUMBER ?? null };
  return { channelRegistrationId: env.PLATFORM_WHATSAPP_SENDER ?? null };
};

/**
 * The platform's provider for a channel, from PLATFORM_* vars and secrets; null when none is
 * named or what it needs is not all set.
 */
export function platformChannelSettings(env: Env, channel: MessageChannel): ChannelSettings | null {
  const provider = env[PROVIDER_VAR[channel]];
  if (!provider) return null;
  const vars = PLATFORM_VARS[`${channel}:${provider}`];
  if (!vars) return null;
  const s: ChannelSettings = {
    channel,
    provider,
    source: "platform",
    tenantId: null,
    config: channelConfig(env, channel),
    options: pick(env, vars.options),
    credentials: pick(env, vars.credentials),
  };
  return missingFields(channel, provider, s).length ? null : s;
}
