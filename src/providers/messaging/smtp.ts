import type { EmailOptions, WorkerMailerOptions } from "worker-mailer";
import { newId } from "../../lib/ids";
import { emailParts, type EmailSender } from "./email-sender";
import { ProviderError, type MessageProvider, type OutgoingMessage } from "./types";

// Loaded on first use: it pulls in cloudflare:sockets, which only SMTP sends need.
const workerMailerSend: SmtpTransport = async (options, email) => (await import("worker-mailer")).WorkerMailer.send(options, email);

export type SmtpSecurity = "tls" | "starttls";

/** Opens a connection, sends one message and closes: WorkerMailer.send over cloudflare:sockets. */
export type SmtpTransport = (options: WorkerMailerOptions, email: EmailOptions) => Promise<void>;

export interface SmtpOptions {
  host: string;
  port: number;
  security: SmtpSecurity;
  username?: string | null;
  password?: string | null;
  sender: EmailSender;
  transport?: SmtpTransport;
}

/**
 * The SMTP reply code in a worker-mailer error ("Invalid RCPT TO: <a@b> 550 5.1.1 ..."): the last
 * 4xx/5xx code in the text. 5xx is permanent; 4xx and errors without a code (timeouts, refused
 * connections) are transient.
 */
export function smtpFailure(err: unknown): ProviderError {
  const text = err instanceof Error ? err.message : String(err);
  const codes = [...text.matchAll(/(?:^|\s)([45]\d\d)(?=[\s-]|$)/g)].map((m) => m[1]!);
  const code = codes.at(-1);
  return new ProviderError(`smtp: ${text}`, !code?.startsWith("5"), code ? Number(code) : undefined);
}

/** SMTP submission (587 STARTTLS or 465 TLS) through worker-mailer; port 25 is blocked on Workers. */
export class SmtpProvider implements MessageProvider {
  readonly name = "smtp";
  constructor(private readonly o: SmtpOptions) {}

  async send(m: OutgoingMessage) {
    const e = emailParts(this.name, this.o.sender, m);
    const messageId = `<${newId()}@${e.from.split("@").pop()}>`;
    const options: WorkerMailerOptions = {
      host: this.o.host,
      port: this.o.port,
      secure: this.o.security === "tls",
      startTls: this.o.security === "starttls",
      ...(this.o.username ? { credentials: { username: this.o.username, password: this.o.password ?? "" }, authType: ["plain", "login"] } : {}),
      socketTimeoutMs: 15_000,
      responseTimeoutMs: 15_000,
    };
    const email: EmailOptions = {
      from: e.fromName ? { email: e.from, name: e.fromName } : e.from,
      to: e.to,
      ...(e.replyTo ? { reply: e.replyTo } : {}),
      subject: e.subject,
      ...(e.text ? { text: e.text } : {}),
      ...(e.html ? { html: e.html } : {}),
      headers: { ...e.headers, "Message-ID": messageId },
    };
    try {
      await (this.o.transport ?? workerMailerSend)(options, email);
    } catch (err) {
      throw smtpFailure(err);
    }
    return { provider: this.name, providerMessageId: messageId };
  }
}
