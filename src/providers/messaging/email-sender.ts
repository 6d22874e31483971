import { type OutgoingMessage, ProviderError } from "./types";

/** Who an email comes from, as configured (EmailConfig) and optionally overridden per message. */
export interface EmailSender {
  fromAddress: string;
  fromName?: string | null;
  replyToAddress?: string | null;
}

export interface EmailParts {
  from: string;
  fromName: string | null;
  replyTo: string | null;
  to: string;
  subject: string;
  text: string | null;
  html: string | null;
  headers: Record<string, string>;
}

/** The message's email fields with the sender applied; refuses (not retryable) what no provider can send. */
export function emailParts(provider: string, sender: EmailSender, m: OutgoingMessage): EmailParts {
  if (m.channel !== "email") throw new ProviderError(`${provider}: cannot send ${m.channel}`, false);
  if (!m.subject) throw new ProviderError(`${provider}: an email needs a subject`, false);
  if (!m.text && !m.html) throw new ProviderError(`${provider}: an email needs text or html`, false);
  return {
    from: m.fromAddress ?? sender.fromAddress,
    fromName: m.fromName ?? sender.fromName ?? null,
    replyTo: m.replyTo ?? sender.replyToAddress ?? null,
    to: m.to,
    subject: m.subject,
    text: m.text ?? null,
    html: m.html ?? null,
    headers: { ...m.headers },
  };
}
