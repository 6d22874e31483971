import { AcsEmailProvider } from "./acs";
import type { ChannelSettings } from "./channel-settings";
import { CloudflareEmailProvider, type SendEmailBinding } from "./cloudflare-email";
import type { EmailSender } from "./email-sender";
import { MetaWhatsAppProvider } from "./meta-whatsapp";
import { SendGridProvider } from "./sendgrid";
import { SesProvider } from "./ses";
import { SmtpProvider, type SmtpSecurity, type SmtpTransport } from "./smtp";
import { TwilioProvider } from "./twilio";
import type { FetchLike, MessageProvider } from "./types";

export interface ProviderDeps {
  fetch?: FetchLike;
  smtpTransport?: SmtpTransport;
  /** the Workers send_email binding (env.EMAIL) for the cloudflare email provider */
  sendEmail?: SendEmailBinding;
  /** the public base URL status callbacks are built on */
  publicBaseUrl: string;
  /** isLocalEnvironment(env): only then may SMTP be plaintext, and only to a loopback host */
  localEnvironment?: boolean;
}

/** SMTP security as configured: tls or plain as written, anything else (unset, a typo) mandatory STARTTLS. */
const smtpSecurity = (v: unknown): SmtpSecurity => (v === "tls" || v === "plain" ? v : "starttls");

const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);

/**
 * Where a provider posts delivery status. Tenant-configured providers sign with the tenant's own
 * secret, so the URL names the tenant and the webhook route knows which secret to check.
 */
export const webhookUrl = (publicBaseUrl: string, provider: string, tenantId: string | null) =>
  `${publicBaseUrl.replace(/\/+$/, "")}/webhooks/providers/${provider}${tenantId ? `?tenant=${encodeURIComponent(tenantId)}` : ""}`;

/** A provider client for complete settings (see missingFields); throws on an unknown provider. */
export function createProvider(s: ChannelSettings, deps: ProviderDeps): MessageProvider {
  const c = s.credentials;
  const o = s.options;
  const sender: EmailSender = {
    fromAddress: s.config.fromAddress ?? "",
    fromName: s.config.fromName ?? null,
    replyToAddress: s.config.replyToAddress ?? null,
  };
  const key = `${s.channel}:${s.provider}`;
  switch (key) {
    case "email:sendgrid":
      return new SendGridProvider({ apiKey: c.apiKey!, sender, fetch: deps.fetch });
    case "email:ses":
      return new SesProvider({
        accessKeyId: c.accessKeyId!,
        secretAccessKey: c.secretAccessKey!,
        region: String(o.region),
        configurationSetName: str(o.configurationSetName),
        sender,
        fetch: deps.fetch,
      });
    case "email:acs":
      return new AcsEmailProvider({ endpoint: String(o.endpoint), accessKey: c.accessKey!, sender, fetch: deps.fetch });
    case "email:smtp":
      return new SmtpProvider({
        host: String(o.host),
        port: Number(o.port),
        security: smtpSecurity(o.security),
        username: c.username ?? null,
        password: c.password ?? null,
        sender,
        transport: deps.smtpTransport,
        plaintextAllowed: deps.localEnvironment === true,
      });
    case "email:cloudflare":
      return new CloudflareEmailProvider({ binding: deps.sendEmail, sender });
    case "sms:twilio":
    case "whatsapp:twilio":
      return new TwilioProvider({
        channel: s.channel === "sms" ? "sms" : "whatsapp",
        accountSid: String(o.accountSid),
        authToken: c.authToken!,
        fromNumber: s.channel === "sms" ? (s.config.fromNumber ?? null) : (s.config.channelRegistrationId ?? null),
        messagingServiceSid: str(o.messagingServiceSid),
        statusCallbackUrl: webhookUrl(deps.publicBaseUrl, "twilio", s.source === "tenant" ? s.tenantId : null),
        fetch: deps.fetch,
      });
    case "whatsapp:meta":
      return new MetaWhatsAppProvider({
        phoneNumberId: s.config.channelRegistrationId!,
        accessToken: c.accessToken!,
        apiVersion: str(o.apiVersion),
        fetch: deps.fetch,
      });
    default:
      throw new Error(`no ${s.channel} provider named ${s.provider}`);
  }
}
