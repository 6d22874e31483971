import type { EmailOptions, WorkerMailerOptions } from "worker-mailer";
import { newId } from "../../lib/ids";
import { type EmailSender, emailParts } from "./email-sender";
import { type MessageProvider, type OutgoingMessage, ProviderError } from "./types";

/** tls: implicit TLS (465); starttls: mandatory STARTTLS (587); plain: a local mail sink on loopback only */
export type SmtpSecurity = "tls" | "starttls" | "plain";

/** Opens a connection, sends one message and closes: WorkerMailer.send over cloudflare:sockets. */
export type SmtpTransport = (options: WorkerMailerOptions, email: EmailOptions) => Promise<void>;

let transportOverride: SmtpTransport | undefined;

/** Tests record every SMTP connection (tenant or platform) here instead of opening sockets; null restores them. */
export const useSmtpTransport = (t: SmtpTransport | null) => {
  transportOverride = t ?? undefined;
};

export interface SmtpOptions {
  host: string;
  port: number;
  security: SmtpSecurity;
  username?: string | null;
  password?: string | null;
  sender: EmailSender;
  transport?: SmtpTransport;
  /** set only in a local environment (isLocalEnvironment): lets security "plain" reach a loopback host */
  plaintextAllowed?: boolean;
}

/** The parts of worker-mailer's WorkerMailer (1.2.x) strictSend drives; private in its typings. */
interface MailerSession {
  secure: boolean;
  startTls: boolean;
  supportsStartTls: boolean;
  active: boolean;
  socket: { close(): Promise<void> };
  waitForSocketConnected(): Promise<void>;
  greet(): Promise<void>;
  ehlo(): Promise<void>;
  tls(): Promise<void>;
  auth(): Promise<void>;
  start(): Promise<void>;
  send(email: EmailOptions): Promise<void>;
  close(err?: Error): Promise<void>;
}

const SESSION_STEPS = ["waitForSocketConnected", "greet", "ehlo", "tls", "auth", "start", "send", "close"] as const;

/**
 * WorkerMailer.send, except that a STARTTLS connection whose server does not offer STARTTLS is
 * refused before AUTH. worker-mailer 1.2.1 (initializeSmtpSession) then carries on in plaintext, so
 * whoever sits on the path strips the capability and reads the password and every reset token.
 * Loaded on first use: it pulls in cloudflare:sockets, which only SMTP sends need. Fails closed if a
 * new version renames the steps this drives.
 */
const strictSend: SmtpTransport = async (options, email) => {
  const { WorkerMailer } = await import("worker-mailer");
  const proto = WorkerMailer.prototype as unknown as Record<string, unknown>;
  const missing = SESSION_STEPS.filter((step) => typeof proto[step] !== "function");
  if (missing.length)
    throw new ProviderError(
      `smtp: worker-mailer lacks ${missing.join(", ")}; refusing to send without the TLS check`,
      false,
    );
  const session = new (WorkerMailer as unknown as new (o: WorkerMailerOptions) => MailerSession)(options);
  try {
    await session.waitForSocketConnected();
    await session.greet();
    await session.ehlo();
    if (!session.secure && session.startTls) {
      if (!session.supportsStartTls) {
        throw new ProviderError(
          `smtp: ${options.host}:${options.port} does not offer STARTTLS; refusing to send credentials and mail in plaintext`,
          false,
        );
      }
      await session.tls();
      await session.ehlo();
    }
    await session.auth();
  } catch (err) {
    await session.socket.close().catch(() => undefined);
    throw err;
  }
  session.active = true;
  session.start().catch(() => undefined);
  try {
    await session.send(email);
  } finally {
    // QUIT and close on a refused message too (WorkerMailer.send leaves that socket open)
    await session.close().catch(() => undefined);
  }
};

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i;

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
    // plaintext only to a mail sink on this machine, and only in a local environment (lib/ssrf.ts isLocalEnvironment)
    if (this.o.security === "plain" && !(this.o.plaintextAllowed && LOOPBACK_HOST.test(this.o.host))) {
      throw new ProviderError(
        "smtp: plaintext SMTP is allowed only to a loopback host in a local environment; use tls or starttls",
        false,
      );
    }
    const e = emailParts(this.name, this.o.sender, m);
    const messageId = `<${newId()}@${e.from.split("@").pop()}>`;
    const options: WorkerMailerOptions = {
      host: this.o.host,
      port: this.o.port,
      secure: this.o.security === "tls",
      startTls: this.o.security === "starttls",
      ...(this.o.username
        ? { credentials: { username: this.o.username, password: this.o.password ?? "" }, authType: ["plain", "login"] }
        : {}),
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
      await (this.o.transport ?? transportOverride ?? strictSend)(options, email);
    } catch (err) {
      throw err instanceof ProviderError ? err : smtpFailure(err);
    }
    return { provider: this.name, providerMessageId: messageId };
  }
}
