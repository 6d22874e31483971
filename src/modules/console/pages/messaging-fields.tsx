/** @jsxImportSource hono/jsx */
import type { MessageChannel } from "../../../db/schema";
import { PROVIDER_SPECS, type ProviderSpec } from "../../../providers/messaging/catalog";
import { listOf, numberOrUndefined } from "../form-values";

/*
 * The providers' own fields on the messaging page (pages/messaging.tsx): for each provider of a channel, the
 * non-secret options and the write-only credentials PUT /v1/settings/{channel} takes, from the providers'
 * catalogue (providers/messaging/catalog.ts), so a field the API needs is never missing here. Each provider's
 * fields post under its own prefix (`ses.o.region`, `ses.s.secretAccessKey`): only the chosen provider's are
 * sent, since the API refuses another provider's fields.
 */

export const PROVIDER_LABEL: Record<string, string> = {
  sendgrid: "SendGrid",
  ses: "Amazon SES",
  acs: "Azure Communication Services",
  smtp: "An SMTP server",
  cloudflare: "Cloudflare Email Sending",
  twilio: "Twilio",
  meta: "Meta (WhatsApp Cloud API)",
};
export const providerLabel = (p: string) => PROVIDER_LABEL[p] ?? p;

const OPTION: Record<string, [label: string, help?: string]> = {
  region: ["AWS region", "For example us-east-1."],
  configurationSetName: ["Configuration set (optional)"],
  snsTopicArn: ["SNS topic ARN for events (optional)", "Delivery events from other topics are refused."],
  dkimTokens: ["Easy DKIM tokens (optional)", "The three tokens SES shows for the domain, separated by spaces."],
  dkimSelectors: ["DKIM selectors to check (optional)", "Separated by spaces; empty checks the provider's usual ones."],
  endpoint: ["Endpoint", "https://{resource}.{geo}.communication.azure.com"],
  host: ["SMTP host"],
  port: ["Port", "587 (STARTTLS) or 465 (TLS); port 25 is blocked."],
  security: ["Security"],
  accountSid: ["Account SID", "Starts with AC."],
  messagingServiceSid: ["Messaging Service SID (optional)", "Starts with MG; sends from the service's numbers."],
  apiVersion: ["Graph API version (optional)", "For example v21.0."],
};
const CREDENTIAL: Record<string, string> = {
  apiKey: "API key",
  webhookVerificationKey: "Event Webhook verification key",
  accessKeyId: "Access key id",
  secretAccessKey: "Secret access key",
  accessKey: "Access key",
  webhookSecret: "Event Grid webhook secret",
  username: "Username",
  password: "Password",
  authToken: "Auth token",
  accessToken: "System user access token",
  appSecret: "App secret",
  verifyToken: "Webhook verify token",
};
/** options typed as a list or a number (ProviderOptionsSchema); the rest are text */
const LIST_OPTIONS = new Set(["dkimTokens", "dkimSelectors"]);
const NUMBER_OPTIONS = new Set(["port"]);
/** shown once for the channel rather than under each provider */
export const SHARED_OPTIONS = new Set(["dkimSelectors"]);

export const providersOf = (channel: MessageChannel) => Object.keys(PROVIDER_SPECS[channel]);
const specOf = (channel: MessageChannel, provider: string): ProviderSpec =>
  (PROVIDER_SPECS[channel] as Record<string, ProviderSpec>)[provider]!;
const optionKeys = (s: ProviderSpec) => [...s.options.required, ...s.options.optional];
const credentialKeys = (s: ProviderSpec) => [...s.credentials.required, ...s.credentials.optional];

export const credentialLabel = (k: string) => CREDENTIAL[k] ?? k;

/** A stored option as the form shows it (a list as words). */
const shown = (v: unknown) => (Array.isArray(v) ? v.join(" ") : v === undefined || v === null ? "" : String(v));

export function OptionInput(props: { id: string; name: string; k: string; value: unknown; required?: boolean }) {
  const [label, help] = OPTION[props.k] ?? [props.k];
  const described = help ? `${props.id}-help` : undefined;
  return (
    <>
      <label for={props.id}>{label}</label>
      {props.k === "security" ? (
        <select id={props.id} name={props.name}>
          <option value="">STARTTLS (port 587)</option>
          <option value="tls" selected={props.value === "tls"}>
            TLS (port 465)
          </option>
        </select>
      ) : (
        <input
          id={props.id}
          name={props.name}
          type="text"
          inputmode={NUMBER_OPTIONS.has(props.k) ? "numeric" : undefined}
          value={shown(props.value)}
          autocomplete="off"
          spellcheck={false}
          aria-describedby={described}
        />
      )}
      {help && (
        <p id={described} class="muted small">
          {help}
        </p>
      )}
    </>
  );
}

/** One provider's fieldset: its options (the stored ones filled back) and its credentials (never filled back). */
export function ProviderFieldset(props: {
  channel: MessageChannel;
  provider: string;
  stored?: { provider: string; options: Record<string, unknown>; credentialsSet: string[] };
}) {
  const spec = specOf(props.channel, props.provider);
  const mine = props.stored?.provider === props.provider ? props.stored : undefined;
  const options = optionKeys(spec).filter((k) => !SHARED_OPTIONS.has(k));
  const credentials = credentialKeys(spec);
  if (!options.length && !credentials.length) return null;
  const id = (kind: string, k: string) => `${props.channel}-${props.provider}-${kind}-${k}`;
  return (
    <fieldset>
      <legend>{providerLabel(props.provider)} only</legend>
      {options.map((k) => (
        <OptionInput id={id("o", k)} name={`${props.provider}.o.${k}`} k={k} value={mine?.options[k]} />
      ))}
      {credentials.map((k) => {
        const stored = mine?.credentialsSet.includes(k);
        return (
          <>
            <label for={id("s", k)}>
              {credentialLabel(k)}
              {stored
                ? " (stored: leave empty to keep it)"
                : spec.credentials.optional.includes(k)
                  ? " (optional)"
                  : ""}
            </label>
            <input
              id={id("s", k)}
              name={`${props.provider}.s.${k}`}
              type="password"
              value=""
              autocomplete="new-password"
            />
          </>
        );
      })}
    </fieldset>
  );
}

type Form = { one(name: string): string };

/** The chosen provider's options and credentials as PUT /v1/settings/{channel} takes them (blank: left out). */
export function providerPart(channel: MessageChannel, provider: string, form: Form) {
  const spec = (PROVIDER_SPECS[channel] as Record<string, ProviderSpec>)[provider];
  if (!spec) return { options: {}, credentials: undefined };
  const options: Record<string, unknown> = {};
  for (const k of optionKeys(spec)) {
    const raw = form.one(SHARED_OPTIONS.has(k) ? `o.${k}` : `${provider}.o.${k}`);
    if (raw.trim() === "") continue;
    options[k] = LIST_OPTIONS.has(k) ? listOf(raw) : NUMBER_OPTIONS.has(k) ? numberOrUndefined(raw) : raw.trim();
  }
  const credentials: Record<string, string> = {};
  for (const k of credentialKeys(spec)) {
    const v = form.one(`${provider}.s.${k}`);
    if (v) credentials[k] = v;
  }
  return { options, credentials: Object.keys(credentials).length ? credentials : undefined };
}

/** The API's field paths (options.region) as the form labels them, for refusals. */
export const messagingLabels: Record<string, string> = {
  provider: "Provider",
  fromAddress: "From address",
  fromName: "From name",
  replyToAddress: "Reply-to address",
  senderDomain: "Sender domain",
  fromNumber: "From number",
  channelRegistrationId: "Sender",
  to: "Send to",
  ...Object.fromEntries(Object.entries(OPTION).map(([k, [l]]) => [`options.${k}`, l])),
  ...Object.fromEntries(Object.entries(CREDENTIAL).map(([k, l]) => [`credentials.${k}`, l])),
};
