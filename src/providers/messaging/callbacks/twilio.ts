import { encodeBase64 } from "../../../lib/base64";
import { safeEqual } from "../../../lib/crypto";
import { twilioFailure } from "../whatsapp-rules";
import type { DeliveryEvent, InboundMessage, ParsedWebhook } from "./types";

export const TWILIO_SIGNATURE_HEADER = "X-Twilio-Signature";

const enc = new TextEncoder();

/**
 * X-Twilio-Signature: base64 HMAC-SHA1, keyed with the account's auth token, of the full URL
 * Twilio called (query string included) followed by every POST parameter as name + value, sorted by name.
 */
export async function twilioSignature(authToken: string, url: string, params: URLSearchParams): Promise<string> {
  const sorted = [...params.entries()].sort(([a, av], [b, bv]) =>
    a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0,
  );
  const data = url + sorted.map(([k, v]) => k + v).join("");
  const key = await crypto.subtle.importKey("raw", enc.encode(authToken), { name: "HMAC", hash: "SHA-1" }, false, [
    "sign",
  ]);
  return encodeBase64(new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(data))));
}

export async function verifyTwilioSignature(
  authToken: string,
  url: string,
  params: URLSearchParams,
  signature: string | null | undefined,
): Promise<boolean> {
  if (!signature) return false;
  return safeEqual(await twilioSignature(authToken, url, params), signature);
}

// Twilio errors that mean the number cannot receive messages at all
const UNREACHABLE_NUMBER_CODES = new Set(["30005", "30006", "21211", "21614"]);

const strip = (n: string) => n.replace(/^whatsapp:/, "");

/**
 * A status callback (MessageStatus delivered/read/undelivered/failed) or an inbound message
 * (SmsStatus received, with Body). Intermediate statuses (queued, sent, ...) give nothing.
 */
export function parseTwilioWebhook(params: URLSearchParams, now = new Date()): ParsedWebhook {
  const sid = params.get("MessageSid") ?? params.get("SmsSid") ?? "";
  const status = params.get("MessageStatus") ?? params.get("SmsStatus") ?? "";
  const from = params.get("From") ?? "";
  const to = params.get("To") ?? "";
  const channel = from.startsWith("whatsapp:") || to.startsWith("whatsapp:") ? "whatsapp" : "sms";

  if (status === "received" || (!params.has("MessageStatus") && params.has("Body"))) {
    const inbound: InboundMessage = {
      provider: "twilio",
      channel,
      from: strip(from),
      body: params.get("Body") ?? "",
      to: strip(to),
      ...(sid ? { providerMessageId: sid } : {}),
    };
    return { events: [], inbound: [inbound] };
  }
  const errorCode = params.get("ErrorCode") ?? "";
  let mapped: DeliveryEvent["status"] | null = null;
  if (status === "delivered" || status === "read") mapped = "delivered";
  else if (status === "undelivered" || status === "failed")
    mapped = UNREACHABLE_NUMBER_CODES.has(errorCode) ? "bounced" : "failed";
  if (!mapped || !sid) return { events: [], inbound: [] };
  const rule = mapped === "failed" && channel === "whatsapp" ? twilioFailure(errorCode, strip(to)) : null;
  const reason =
    rule?.reason ?? [errorCode && `Twilio error ${errorCode}`, params.get("ErrorMessage")].filter(Boolean).join(": ");
  return {
    events: [
      {
        provider: "twilio",
        providerMessageId: sid,
        status: mapped,
        address: strip(to),
        ...(reason ? { reason } : {}),
        occurredAt: now.toISOString(),
      },
    ],
    inbound: [],
  };
}
