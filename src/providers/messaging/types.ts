import type { MessageChannel } from "../../db/schema";

/** An approved WhatsApp template (Meta: template name; Twilio: Content SID) and its body parameters in order. */
export interface WhatsAppTemplate {
  name: string;
  /** BCP 47-ish language code as registered with the template, e.g. en_US */
  language: string;
  params?: string[];
}

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
  /** email: overrides the configured sender for this message */
  fromAddress?: string | null;
  fromName?: string | null;
  replyTo?: string | null;
  /** WhatsApp: the approved template to send (required outside the 24 h customer service window) */
  whatsappTemplate?: WhatsAppTemplate | null;
  /** WhatsApp: true when the recipient wrote to us in the last 24 hours, so free text is allowed */
  withinServiceWindow?: boolean;
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
  /** optional: many messages in one call, all accepted (receipts in order) or none (throws) */
  sendMany?(messages: OutgoingMessage[]): Promise<SendReceipt[]>;
}

export class ProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    /** a provider rule the failure broke (e.g. whatsapp_marketing_us_blocked), when it is one */
    readonly code?: string,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}

/** The fetch a provider client calls; tests pass a stand-in that checks the wire format. */
export type FetchLike = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;
