import { decodeBase64 } from "../../../lib/base64";
import { type DeliveryEvent, type DeliveryStatus, epochSecondsToIso } from "./types";

export const SENDGRID_SIGNATURE_HEADER = "X-Twilio-Email-Event-Webhook-Signature";
export const SENDGRID_TIMESTAMP_HEADER = "X-Twilio-Email-Event-Webhook-Timestamp";

const enc = new TextEncoder();

/** An ECDSA signature in DER (SEQUENCE of two INTEGERs) as the raw r||s WebCrypto verifies. */
export function derToRawEcdsa(der: Uint8Array, size = 32): Uint8Array {
  let i = 0;
  if (der[i++] !== 0x30) throw new Error("not a DER sequence");
  if (der[i]! & 0x80) i += (der[i]! & 0x7f) + 1;
  else i += 1;
  const out = new Uint8Array(size * 2);
  for (let part = 0; part < 2; part++) {
    if (der[i++] !== 0x02) throw new Error("not a DER integer");
    const len = der[i++]!;
    let int = der.subarray(i, i + len);
    i += len;
    while (int.length > size && int[0] === 0) int = int.subarray(1);
    if (int.length > size) throw new Error("integer too long");
    out.set(int, part * size + (size - int.length));
  }
  return out;
}

const pemBody = (key: string) => key.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, "");

/**
 * SendGrid's signed Event Webhook: an ECDSA P-256 / SHA-256 signature (base64 DER) over the
 * timestamp header followed by the raw body, checked with the verification key from the console
 * (base64 DER SubjectPublicKeyInfo, PEM armour optional).
 */
export async function verifySendGridSignature(
  publicKey: string,
  signature: string | null | undefined,
  timestamp: string | null | undefined,
  rawBody: string | Uint8Array,
): Promise<boolean> {
  if (!signature || !timestamp) return false;
  try {
    const key = await crypto.subtle.importKey(
      "spki",
      decodeBase64(pemBody(publicKey)),
      { name: "ECDSA", namedCurve: "P-256" },
      false,
      ["verify"],
    );
    const body = typeof rawBody === "string" ? enc.encode(rawBody) : rawBody;
    const payload = new Uint8Array(enc.encode(timestamp).length + body.length);
    payload.set(enc.encode(timestamp));
    payload.set(body, enc.encode(timestamp).length);
    return await crypto.subtle.verify(
      { name: "ECDSA", hash: "SHA-256" },
      key,
      derToRawEcdsa(decodeBase64(signature)),
      payload,
    );
  } catch {
    return false;
  }
}

interface SendGridEvent {
  event?: string;
  email?: string;
  timestamp?: number;
  sg_message_id?: string;
  reason?: string;
  response?: string;
  type?: string;
  solicitation_id?: string;
}

const statusOf = (e: SendGridEvent): DeliveryStatus | null => {
  switch (e.event) {
    case "delivered":
      return "delivered";
    case "bounce":
      // "blocked" is a temporary refusal by the receiving server, not a bad address
      return e.type === "blocked" ? "failed" : "bounced";
    case "dropped":
      return "failed";
    case "spamreport":
      return "complained";
    default:
      return null;
  }
};

/** sg_message_id is the X-Message-Id from the send, then ".filter..." (or ".recvd-...") added by SendGrid. */
const messageIdOf = (sg: string) => sg.split(/\.(?:filter|recvd)/)[0]!;

/** The delivery outcomes in a SendGrid event batch; opens, clicks, processed and deferred are skipped. */
export function parseSendGridEvents(rawBody: string): DeliveryEvent[] {
  const parsed = JSON.parse(rawBody) as unknown;
  if (!Array.isArray(parsed)) throw new Error("SendGrid events must be a JSON array");
  const out: DeliveryEvent[] = [];
  for (const e of parsed as SendGridEvent[]) {
    const status = statusOf(e);
    if (!status || !e.sg_message_id) continue;
    const reason = e.reason ?? e.response;
    out.push({
      provider: "sendgrid",
      providerMessageId: messageIdOf(e.sg_message_id),
      status,
      ...(e.email ? { address: e.email } : {}),
      ...(reason ? { reason } : {}),
      occurredAt: epochSecondsToIso(e.timestamp),
      ...(e.solicitation_id ? { solicitationId: e.solicitation_id } : {}),
    });
  }
  return out;
}
