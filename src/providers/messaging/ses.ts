import { AwsClient } from "aws4fetch";
import { type EmailSender, emailParts } from "./email-sender";
import { callProvider, mailbox, refusal } from "./http";
import { type FetchLike, type MessageProvider, type OutgoingMessage, ProviderError } from "./types";

export interface SesOptions {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  configurationSetName?: string | null;
  sender: EmailSender;
  fetch?: FetchLike;
  /** defaults to https://email.{region}.amazonaws.com */
  endpoint?: string;
}

const describe = (body: unknown) => {
  const b = body as { message?: string; Message?: string };
  return b.message ?? b.Message;
};

// SES message tag values allow only ASCII letters, digits, '_' and '-'
const tag = (Name: string, value: string) => ({ Name, Value: value.replace(/[^A-Za-z0-9_-]/g, "_") });

/** Amazon SES v2 SendEmail (POST /v2/email/outbound-emails), SigV4-signed with aws4fetch. */
export class SesProvider implements MessageProvider {
  readonly name = "ses";
  private readonly aws: AwsClient;
  constructor(private readonly o: SesOptions) {
    this.aws = new AwsClient({
      accessKeyId: o.accessKeyId,
      secretAccessKey: o.secretAccessKey,
      region: o.region,
      service: "ses",
      retries: 0,
    });
  }

  async send(m: OutgoingMessage) {
    const e = emailParts(this.name, this.o.sender, m);
    const headers = Object.entries(e.headers).map(([Name, Value]) => ({ Name, Value }));
    const tags = [
      ...(m.tenantId ? [tag("tenant_id", m.tenantId)] : []),
      ...(m.solicitationId ? [tag("solicitation_id", m.solicitationId)] : []),
    ];
    const body = {
      FromEmailAddress: mailbox(e.from, e.fromName),
      Destination: { ToAddresses: [e.to] },
      ...(e.replyTo ? { ReplyToAddresses: [e.replyTo] } : {}),
      Content: {
        Simple: {
          Subject: { Data: e.subject, Charset: "UTF-8" },
          Body: {
            ...(e.text ? { Text: { Data: e.text, Charset: "UTF-8" } } : {}),
            ...(e.html ? { Html: { Data: e.html, Charset: "UTF-8" } } : {}),
          },
          ...(headers.length ? { Headers: headers } : {}),
        },
      },
      ...(this.o.configurationSetName ? { ConfigurationSetName: this.o.configurationSetName } : {}),
      ...(tags.length ? { EmailTags: tags } : {}),
    };
    const endpoint = this.o.endpoint ?? `https://email.${this.o.region}.amazonaws.com`;
    const req = await this.aws.sign(`${endpoint}/v2/email/outbound-emails`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const res = await callProvider(this.name, this.o.fetch ?? fetch, req);
    if (!res.ok) throw await refusal(this.name, res, describe);
    const out = (await res.json().catch(() => ({}))) as { MessageId?: string };
    if (!out.MessageId) throw new ProviderError("ses: answer without a MessageId", false, res.status);
    return { provider: this.name, providerMessageId: out.MessageId };
  }
}
