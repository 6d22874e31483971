import { type EmailSender, emailParts } from "./email-sender";
import { callProvider, refusal } from "./http";
import { type FetchLike, type MessageProvider, type OutgoingMessage, ProviderError } from "./types";

export interface SendGridOptions {
  apiKey: string;
  sender: EmailSender;
  fetch?: FetchLike;
  baseUrl?: string;
}

const describe = (body: unknown) => {
  const errors = (body as { errors?: { message?: string; field?: string | null }[] }).errors;
  return errors?.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join("; ");
};

/** SendGrid v3 Mail Send: POST /v3/mail/send with a Bearer API key; 202 means accepted (X-Message-Id). */
export class SendGridProvider implements MessageProvider {
  readonly name = "sendgrid";
  constructor(private readonly o: SendGridOptions) {}

  async send(m: OutgoingMessage) {
    const e = emailParts(this.name, this.o.sender, m);
    const customArgs: Record<string, string> = {};
    if (m.tenantId) customArgs.tenant_id = m.tenantId;
    if (m.solicitationId) customArgs.solicitation_id = m.solicitationId;
    const body = {
      personalizations: [{ to: [{ email: e.to }] }],
      from: e.fromName ? { email: e.from, name: e.fromName } : { email: e.from },
      ...(e.replyTo ? { reply_to: { email: e.replyTo } } : {}),
      subject: e.subject,
      // SendGrid requires text/plain before text/html
      content: [
        ...(e.text ? [{ type: "text/plain", value: e.text }] : []),
        ...(e.html ? [{ type: "text/html", value: e.html }] : []),
      ],
      ...(Object.keys(e.headers).length ? { headers: e.headers } : {}),
      ...(Object.keys(customArgs).length ? { custom_args: customArgs } : {}),
    };
    const req = new Request(`${this.o.baseUrl ?? "https://api.sendgrid.com"}/v3/mail/send`, {
      method: "POST",
      headers: { authorization: `Bearer ${this.o.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const res = await callProvider(this.name, this.o.fetch ?? fetch, req);
    if (!res.ok) throw await refusal(this.name, res, describe);
    const id = res.headers.get("x-message-id");
    if (!id) throw new ProviderError("sendgrid: accepted without an X-Message-Id", false, res.status);
    return { provider: this.name, providerMessageId: id };
  }
}
