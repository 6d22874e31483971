import { safeEqual } from "../../../lib/crypto";
import { metaFailure } from "../whatsapp-rules";
import { bytesToHex, type DeliveryEvent, epochSecondsToIso, type InboundMessage, type ParsedWebhook } from "./types";

export const META_SIGNATURE_HEADER = "X-Hub-Signature-256";

const enc = new TextEncoder();

/** X-Hub-Signature-256: "sha256=" + hex HMAC-SHA256 of the raw body under the app secret. */
export async function metaSignature(appSecret: string, rawBody: string | Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey("raw", enc.encode(appSecret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const body = typeof rawBody === "string" ? enc.encode(rawBody) : rawBody;
  return `sha256=${bytesToHex(await crypto.subtle.sign("HMAC", key, body))}`;
}

export async function verifyMetaSignature(
  appSecret: string,
  rawBody: string | Uint8Array,
  header: string | null | undefined,
): Promise<boolean> {
  if (!header) return false;
  return safeEqual(await metaSignature(appSecret, rawBody), header.trim().toLowerCase());
}

/**
 * The GET verification request (hub.mode=subscribe, hub.verify_token, hub.challenge): the
 * challenge to echo when the token matches, else null (answer 403).
 */
export function metaVerificationChallenge(query: URLSearchParams, verifyToken: string): string | null {
  const token = query.get("hub.verify_token");
  if (query.get("hub.mode") !== "subscribe" || !token || !safeEqual(token, verifyToken)) return null;
  return query.get("hub.challenge");
}

interface MetaValue {
  statuses?: {
    id?: string;
    status?: string;
    timestamp?: string;
    recipient_id?: string;
    errors?: { code?: number; title?: string; message?: string }[];
  }[];
  messages?: {
    from?: string;
    id?: string;
    type?: string;
    text?: { body?: string };
    button?: { text?: string };
    interactive?: { button_reply?: { title?: string }; list_reply?: { title?: string } };
  }[];
  metadata?: { display_phone_number?: string; phone_number_id?: string };
}

interface MetaPayload {
  object?: string;
  entry?: { changes?: { field?: string; value?: MetaValue }[] }[];
}

// a recipient that is not on WhatsApp, or cannot be reached, is as good as a bounced address
const UNDELIVERABLE_CODES = new Set([131026, 131021]);

const withPlus = (n: string) => (n.startsWith("+") ? n : `+${n}`);

/** Status updates (delivered/read/failed) and inbound text in a WhatsApp Cloud API webhook. */
export function parseMetaWebhook(body: unknown): ParsedWebhook {
  const p = body as MetaPayload;
  const events: DeliveryEvent[] = [];
  const inbound: InboundMessage[] = [];
  if (p?.object !== "whatsapp_business_account") return { events, inbound };
  for (const entry of p.entry ?? []) {
    for (const change of entry.changes ?? []) {
      if (change.field !== "messages" || !change.value) continue;
      const v = change.value;
      for (const s of v.statuses ?? []) {
        if (!s.id) continue;
        const err = s.errors?.[0];
        const status: DeliveryEvent["status"] | null =
          s.status === "delivered" || s.status === "read"
            ? "delivered"
            : s.status === "failed"
              ? err?.code && UNDELIVERABLE_CODES.has(err.code)
                ? "bounced"
                : "failed"
              : null;
        if (!status) continue;
        const rule = status === "failed" ? metaFailure(err?.code, s.recipient_id) : null;
        const reason = rule?.reason ?? (err ? `${err.code ?? ""} ${err.title ?? err.message ?? ""}`.trim() : undefined);
        events.push({
          provider: "meta",
          providerMessageId: s.id,
          status,
          ...(s.recipient_id ? { address: withPlus(s.recipient_id) } : {}),
          ...(reason ? { reason } : {}),
          occurredAt: epochSecondsToIso(s.timestamp),
        });
      }
      for (const m of v.messages ?? []) {
        const text =
          m.text?.body ?? m.button?.text ?? m.interactive?.button_reply?.title ?? m.interactive?.list_reply?.title;
        if (!m.from || text === undefined) continue;
        inbound.push({
          provider: "meta",
          channel: "whatsapp",
          from: withPlus(m.from),
          body: text,
          ...(v.metadata?.phone_number_id ? { to: v.metadata.phone_number_id } : {}),
          ...(m.id ? { providerMessageId: m.id } : {}),
        });
      }
    }
  }
  return { events, inbound };
}
