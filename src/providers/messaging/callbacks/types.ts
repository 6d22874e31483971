export type DeliveryStatus = "delivered" | "bounced" | "failed" | "complained";

/** A provider's delivery report, normalised: what the solicitation core applies to a SENT message. */
export interface DeliveryEvent {
  provider: string;
  /** the id the provider returned on send (SendReceipt.providerMessageId) */
  providerMessageId: string;
  status: DeliveryStatus;
  /** the recipient the report is about (email address or E.164 number) */
  address?: string;
  reason?: string;
  /** ISO 8601 */
  occurredAt: string;
  /** set when the provider echoes it back (SendGrid custom_args, SES tags) */
  solicitationId?: string;
}

/** An inbound SMS or WhatsApp message (STOP and friends revoke consent). */
export interface InboundMessage {
  provider: string;
  channel: "sms" | "whatsapp";
  /** E.164 sender, without any whatsapp: prefix */
  from: string;
  body: string;
  to?: string;
  providerMessageId?: string;
}

export interface ParsedWebhook {
  events: DeliveryEvent[];
  inbound: InboundMessage[];
}

export const epochSecondsToIso = (s: number | string | undefined, fallback = new Date()) => {
  const n = Number(s);
  return Number.isFinite(n) && n > 0 ? new Date(n * 1000).toISOString() : fallback.toISOString();
};

export const bytesToHex = (bytes: ArrayBuffer) =>
  [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
