import { and, eq } from "drizzle-orm";
import { messagingSettings } from "../../../db/schema";
import { tenantDb } from "../../../db/shards";
import type { Env } from "../../../env";
import { openCredentials } from "../settings-store";

/** The secrets a webhook may be signed with: the tenant's (when the URL names one) and the platform's. */
export interface WebhookKeys {
  sendgridPublicKeys: string[];
  twilioAuthTokens: string[];
  metaAppSecrets: string[];
  metaVerifyTokens: string[];
  acsSecrets: string[];
  snsTopicArns: string[];
}

export const WEBHOOK_PROVIDERS = ["sendgrid", "ses", "acs", "twilio", "meta"] as const;
export type WebhookProvider = (typeof WEBHOOK_PROVIDERS)[number];

const present = (...values: (string | undefined | null | unknown)[]) =>
  values.filter((v): v is string => typeof v === "string" && v !== "");

/**
 * Loads the candidate keys for a provider's webhook. `tenantId` comes from the webhook URL's
 * `?tenant=` (set by us in status callback URLs and by the tenant in their provider console); it only
 * selects which secrets to try, so a wrong one simply fails verification.
 */
export async function loadWebhookKeys(
  env: Env,
  provider: WebhookProvider,
  tenantId: string | null,
): Promise<WebhookKeys> {
  // messaging settings are tenant rows: on the tenant's shard
  const rows = tenantId
    ? await (await tenantDb(env, tenantId))
        .select()
        .from(messagingSettings)
        .where(and(eq(messagingSettings.tenantId, tenantId), eq(messagingSettings.provider, provider)))
        .all()
    : [];
  const tenant = await Promise.all(
    rows.map(async (r) => ({ options: r.options, credentials: await openCredentials(env, r.credentials) })),
  );
  const creds = (field: string) => tenant.map((t) => t.credentials[field]);
  return {
    sendgridPublicKeys: present(...creds("webhookVerificationKey"), env.PLATFORM_SENDGRID_WEBHOOK_PUBLIC_KEY),
    twilioAuthTokens: present(...creds("authToken"), env.PLATFORM_TWILIO_AUTH_TOKEN),
    metaAppSecrets: present(...creds("appSecret"), env.PLATFORM_META_APP_SECRET),
    metaVerifyTokens: present(...creds("verifyToken"), env.PLATFORM_META_VERIFY_TOKEN),
    acsSecrets: present(...creds("webhookSecret"), env.PLATFORM_ACS_WEBHOOK_SECRET),
    snsTopicArns: present(...tenant.map((t) => t.options.snsTopicArn), env.PLATFORM_SES_SNS_TOPIC_ARN),
  };
}
