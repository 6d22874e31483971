import { type EmailSender, emailParts } from "./email-sender";
import { type MessageProvider, type OutgoingMessage, ProviderError } from "./types";

/** The part of the Workers `send_email` binding (Cloudflare Email Sending) this provider calls. */
export type SendEmailBinding = Pick<SendEmail, "send">;

export interface CloudflareEmailOptions {
  /** env.EMAIL, the `[[send_email]]` binding of wrangler.toml; absent: every send is refused */
  binding?: SendEmailBinding | null;
  sender: EmailSender;
}

/**
 * Error codes of the binding's send() (developers.cloudflare.com/email-service/api/send-emails/workers-api/,
 * "Error codes"): a rate limit, the daily quota and the service's own failure are worth retrying with
 * backoff; every other code is the message's fault (sender not verified or onboarded, recipient
 * suppressed, content or headers refused, a delivery the receiving server rejected). An error
 * without a code is the runtime's (an RPC failure): transient.
 */
const RETRYABLE = new Set(["E_RATE_LIMIT_EXCEEDED", "E_DAILY_LIMIT_EXCEEDED", "E_INTERNAL_SERVER_ERROR"]);

export function cloudflareEmailFailure(err: unknown): ProviderError {
  const code = typeof (err as { code?: unknown })?.code === "string" ? (err as { code: string }).code : undefined;
  const text = err instanceof Error ? err.message : String(err);
  return new ProviderError(`cloudflare: ${code ? `${code}: ` : ""}${text}`, code ? RETRYABLE.has(code) : true);
}

/**
 * Headers the service accepts (…/email-service/reference/headers/): an allowlist plus any `X-`
 * header. `List-Unsubscribe` must carry an https or mailto URI and `List-Unsubscribe-Post` needs an
 * https one: with a plain-http link (local development) both are left out rather than have the
 * service refuse the message (the link stays in the body). Our ids ride as X- headers.
 */
function allowedHeaders(headers: Record<string, string>, m: OutgoingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  const unsubscribe = Object.entries(headers).find(([k]) => k.toLowerCase() === "list-unsubscribe")?.[1];
  const secure = unsubscribe !== undefined && /<(https:|mailto:)/i.test(unsubscribe);
  const https = unsubscribe !== undefined && /<https:/i.test(unsubscribe);
  for (const [k, v] of Object.entries(headers)) {
    const name = k.toLowerCase();
    if (name === "list-unsubscribe" && !secure) continue;
    if (name === "list-unsubscribe-post" && !https) continue;
    out[k] = v;
  }
  if (m.solicitationId) out["X-Solicitation-Id"] = m.solicitationId;
  if (m.tenantId) out["X-Tenant-Id"] = m.tenantId;
  return out;
}

/** Cloudflare Email Sending through the Workers `send_email` binding (structured send()). */
export class CloudflareEmailProvider implements MessageProvider {
  readonly name = "cloudflare";
  constructor(private readonly o: CloudflareEmailOptions) {}

  async send(m: OutgoingMessage) {
    const e = emailParts(this.name, this.o.sender, m);
    if (!this.o.binding)
      throw new ProviderError(
        "cloudflare: this deployment has no send_email binding named EMAIL (wrangler.toml)",
        false,
      );
    let result: EmailSendResult;
    try {
      result = await this.o.binding.send({
        from: e.fromName ? { email: e.from, name: e.fromName } : e.from,
        to: e.to,
        subject: e.subject,
        ...(e.replyTo ? { replyTo: e.replyTo } : {}),
        ...(e.text ? { text: e.text } : {}),
        ...(e.html ? { html: e.html } : {}),
        headers: allowedHeaders(e.headers, m),
      });
    } catch (err) {
      throw cloudflareEmailFailure(err);
    }
    if (!result?.messageId) throw new ProviderError("cloudflare: answer without a messageId", false);
    return { provider: this.name, providerMessageId: result.messageId };
  }
}
