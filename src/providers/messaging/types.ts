import type { MessageChannel } from "../../db/schema";

export interface OutgoingMessage {
  tenantId: string | null;
  channel: MessageChannel;
  /** email address or E.164 phone number */
  to: string;
  subject?: string | null;
  html?: string | null;
  text?: string | null;
  headers?: Record<string, string>;
  solicitationId?: string | null;
}

export interface SendReceipt {
  provider: string;
  providerMessageId: string;
}

/**
 * One interface for every channel's provider (outbox, sendgrid, ses, acs, smtp, twilio, meta).
 * Transient failures (429, 5xx, network) throw ProviderError with retryable=true.
 */
export interface MessageProvider {
  readonly name: string;
  send(message: OutgoingMessage): Promise<SendReceipt>;
}

export class ProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}
