import type { ChannelConfig, MessageChannel } from "../../db/schema";

/** What each provider needs: non-secret options, write-only credentials, and channel fields. */
export interface ProviderSpec {
  options: { required: readonly string[]; optional: readonly string[] };
  credentials: { required: readonly string[]; optional: readonly string[] };
  /** channel fields that must be set (e.g. the WhatsApp phone number id) */
  config: readonly (keyof ChannelConfig)[];
}

const spec = (
  options: [string[], string[]],
  credentials: [string[], string[]],
  config: (keyof ChannelConfig)[] = [],
): ProviderSpec => ({
  options: { required: options[0], optional: options[1] },
  credentials: { required: credentials[0], optional: credentials[1] },
  config,
});

export const PROVIDER_SPECS = {
  email: {
    sendgrid: spec([[], ["dkimSelectors"]], [["apiKey"], ["webhookVerificationKey"]]),
    ses: spec(
      [["region"], ["configurationSetName", "snsTopicArn", "dkimTokens", "dkimSelectors"]],
      [["accessKeyId", "secretAccessKey"], []],
    ),
    acs: spec([["endpoint"], ["dkimSelectors"]], [["accessKey"], ["webhookSecret"]]),
    smtp: spec(
      [
        ["host", "port"],
        ["security", "dkimSelectors"],
      ],
      [[], ["username", "password"]],
    ),
    // the send_email binding is the credential: the sender's domain must be onboarded to Email Sending
    cloudflare: spec([[], ["dkimSelectors"]], [[], []]),
  },
  sms: {
    twilio: spec([["accountSid"], ["messagingServiceSid"]], [["authToken"], []]),
  },
  whatsapp: {
    meta: spec([[], ["apiVersion"]], [["accessToken"], ["appSecret", "verifyToken"]], ["channelRegistrationId"]),
    twilio: spec([["accountSid"], []], [["authToken"], []], ["channelRegistrationId"]),
  },
} as const satisfies Record<MessageChannel, Record<string, ProviderSpec>>;

export const EMAIL_PROVIDERS = ["acs", "cloudflare", "sendgrid", "ses", "smtp"] as const;
export const SMS_PROVIDERS = ["twilio"] as const;
export const WHATSAPP_PROVIDERS = ["meta", "twilio"] as const;

export type EmailProviderName = (typeof EMAIL_PROVIDERS)[number];

export function providerSpec(channel: MessageChannel, provider: string): ProviderSpec | undefined {
  return (PROVIDER_SPECS[channel] as Record<string, ProviderSpec>)[provider];
}

/** The names of what is missing for this provider to send (empty when it is complete). */
export function missingFields(
  channel: MessageChannel,
  provider: string,
  s: { config: ChannelConfig; options: Record<string, unknown>; credentials: Record<string, unknown> },
): string[] {
  const sp = providerSpec(channel, provider);
  if (!sp) return ["provider"];
  const absent = (v: unknown) => v === undefined || v === null || v === "";
  const missing = [
    ...sp.config.filter((k) => absent(s.config[k])),
    ...sp.options.required.filter((k) => absent(s.options[k])).map((k) => `options.${k}`),
    ...sp.credentials.required.filter((k) => absent(s.credentials[k])).map((k) => `credentials.${k}`),
  ];
  if (channel === "email" && absent(s.config.fromAddress)) missing.push("fromAddress");
  if (channel === "sms" && absent(s.config.fromNumber) && absent(s.options.messagingServiceSid))
    missing.push("fromNumber");
  if (channel === "email" && provider === "smtp" && absent(s.credentials.username) !== absent(s.credentials.password)) {
    missing.push(absent(s.credentials.username) ? "credentials.username" : "credentials.password");
  }
  return missing;
}
