import { basicAuth, callProvider, refusal } from "./http";
import { type FetchLike, type MessageProvider, type OutgoingMessage, ProviderError } from "./types";
import { twilioFailure } from "./whatsapp-rules";

export interface TwilioOptions {
  /** SMS or WhatsApp (numbers are sent with the whatsapp: prefix) */
  channel: "sms" | "whatsapp";
  accountSid: string;
  authToken: string;
  /** E.164 sender; for SMS a Messaging Service may stand in for it */
  fromNumber?: string | null;
  messagingServiceSid?: string | null;
  /** where Twilio posts status callbacks (signed with the auth token) */
  statusCallbackUrl?: string | null;
  fetch?: FetchLike;
  baseUrl?: string;
}

const describe = (body: unknown) => {
  const b = body as { code?: number; message?: string };
  return b.message ? `${b.code ? `${b.code} ` : ""}${b.message}` : undefined;
};

const address = (channel: "sms" | "whatsapp", number: string) =>
  channel === "whatsapp" && !number.startsWith("whatsapp:") ? `whatsapp:${number}` : number;

/** Twilio Programmable Messaging: POST /2010-04-01/Accounts/{Sid}/Messages.json, form-encoded, Basic auth. */
export class TwilioProvider implements MessageProvider {
  readonly name = "twilio";
  constructor(private readonly o: TwilioOptions) {}

  async send(m: OutgoingMessage) {
    if (m.channel !== this.o.channel)
      throw new ProviderError(`twilio: configured for ${this.o.channel}, not ${m.channel}`, false);
    const form = new URLSearchParams();
    form.set("To", address(this.o.channel, m.to));
    if (this.o.fromNumber) form.set("From", address(this.o.channel, this.o.fromNumber));
    else if (this.o.messagingServiceSid) form.set("MessagingServiceSid", this.o.messagingServiceSid);
    else throw new ProviderError("twilio: no sender number or messaging service configured", false);

    const template = this.o.channel === "whatsapp" ? m.whatsappTemplate : null;
    if (template) {
      // Twilio WhatsApp templates are Content API templates: ContentSid + numbered variables
      form.set("ContentSid", template.name);
      const vars = Object.fromEntries((template.params ?? []).map((v, i) => [String(i + 1), v]));
      if (Object.keys(vars).length) form.set("ContentVariables", JSON.stringify(vars));
    } else {
      if (this.o.channel === "whatsapp" && !m.withinServiceWindow) {
        throw new ProviderError(
          "twilio: WhatsApp free text is only allowed within 24 hours of the recipient's last message; send a template",
          false,
        );
      }
      if (!m.text) throw new ProviderError("twilio: a message needs text", false);
      form.set("Body", m.text);
    }
    if (this.o.statusCallbackUrl) form.set("StatusCallback", this.o.statusCallbackUrl);

    const url = `${this.o.baseUrl ?? "https://api.twilio.com"}/2010-04-01/Accounts/${encodeURIComponent(this.o.accountSid)}/Messages.json`;
    const req = new Request(url, {
      method: "POST",
      headers: {
        authorization: basicAuth(this.o.accountSid, this.o.authToken),
        "content-type": "application/x-www-form-urlencoded",
      },
      body: form.toString(),
    });
    const res = await callProvider(this.name, this.o.fetch ?? fetch, req);
    if (!res.ok) {
      const code = (
        (await res
          .clone()
          .json()
          .catch(() => ({}))) as { code?: number }
      ).code;
      // 63049: Meta will not deliver this marketing template (US number, or the recipient's marketing limit)
      const rule = this.o.channel === "whatsapp" ? twilioFailure(code, m.to) : null;
      if (rule)
        throw new ProviderError(`${this.name}: HTTP ${res.status}: ${rule.reason}`, false, res.status, rule.code);
      throw await refusal(this.name, res, describe);
    }
    const out = (await res.json().catch(() => ({}))) as { sid?: string };
    if (!out.sid) throw new ProviderError("twilio: answer without a message sid", false, res.status);
    return { provider: this.name, providerMessageId: out.sid };
  }
}
