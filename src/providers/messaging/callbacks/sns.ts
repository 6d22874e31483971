import { decodeBase64 } from "../../../lib/base64";
import type { FetchLike } from "../types";
import type { DeliveryEvent } from "./types";

export interface SnsMessage {
  Type: "Notification" | "SubscriptionConfirmation" | "UnsubscribeConfirmation" | string;
  MessageId: string;
  TopicArn: string;
  Message: string;
  Timestamp: string;
  SignatureVersion: string;
  Signature: string;
  SigningCertURL: string;
  Subject?: string;
  Token?: string;
  SubscribeURL?: string;
  UnsubscribeURL?: string;
}

/** SNS endpoints live at sns.<region>.amazonaws.com (or .amazonaws.com.cn); nothing else may hand us a certificate or a subscribe link. */
export function isSnsUrl(raw: string | undefined, pathPattern?: RegExp): boolean {
  if (!raw) return false;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.protocol !== "https:" || url.port !== "" || url.username || url.password) return false;
  if (!/^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/.test(url.hostname)) return false;
  return pathPattern ? pathPattern.test(url.pathname) : true;
}

/** The fields SNS signs, in order, as "Name\nValue\n" pairs. */
export function snsStringToSign(m: SnsMessage): string {
  const keys =
    m.Type === "Notification"
      ? ["Message", "MessageId", ...(m.Subject !== undefined ? ["Subject"] : []), "Timestamp", "TopicArn", "Type"]
      : ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"];
  return keys.map((k) => `${k}\n${(m as unknown as Record<string, string>)[k] ?? ""}\n`).join("");
}

// ---- the signing certificate's public key: a small DER walk to the SubjectPublicKeyInfo

function readTlv(der: Uint8Array, at: number) {
  const tag = der[at]!;
  let len = der[at + 1]!;
  let header = 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[at + 2 + i]!;
    header += n;
  }
  return { tag, start: at + header, end: at + header + len, next: at + header + len };
}

/** The SubjectPublicKeyInfo (DER) of an X.509 certificate in PEM. */
export function spkiFromPem(pem: string): Uint8Array {
  const der = decodeBase64(pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, ""));
  const cert = readTlv(der, 0);
  const tbs = readTlv(der, cert.start);
  let at = tbs.start;
  if (der[at] === 0xa0) at = readTlv(der, at).next; // [0] version
  // serialNumber, signature, issuer, validity, subject, then subjectPublicKeyInfo
  for (let i = 0; i < 5; i++) at = readTlv(der, at).next;
  const spki = readTlv(der, at);
  if (spki.tag !== 0x30) throw new Error("no SubjectPublicKeyInfo in certificate");
  return der.slice(at, spki.end);
}

/** Resolved keys only: a promise shared across requests would resume in another request's context. */
const certCache = new Map<string, Uint8Array>();

async function signingKey(url: string, fetchImpl: FetchLike): Promise<Uint8Array> {
  const hit = certCache.get(url);
  if (hit) return hit;
  const res = await fetchImpl(url, { redirect: "manual" });
  if (!res.ok) throw new Error(`SNS certificate fetch answered ${res.status}`);
  const key = spkiFromPem(await res.text());
  certCache.set(url, key);
  return key;
}

export interface SnsVerifyOptions {
  /** only these topics are accepted: any AWS account can sign an SNS message for its own topic */
  allowedTopicArns: string[];
  fetch?: FetchLike;
}

/**
 * Verifies an SNS message: a topic we subscribed to, a certificate fetched over https from an SNS
 * host, and an RSA PKCS#1 v1.5 signature (SHA-1 for SignatureVersion 1, SHA-256 for 2).
 */
export async function verifySnsMessage(m: SnsMessage, o: SnsVerifyOptions): Promise<boolean> {
  if (!m || typeof m !== "object" || typeof m.Signature !== "string") return false;
  if (!o.allowedTopicArns.includes(m.TopicArn)) return false;
  if (!isSnsUrl(m.SigningCertURL, /\.pem$/)) return false;
  const hash = m.SignatureVersion === "1" ? "SHA-1" : m.SignatureVersion === "2" ? "SHA-256" : null;
  if (!hash) return false;
  try {
    const spki = await signingKey(m.SigningCertURL, o.fetch ?? fetch);
    const key = await crypto.subtle.importKey("spki", spki, { name: "RSASSA-PKCS1-v1_5", hash }, false, ["verify"]);
    return await crypto.subtle.verify(
      "RSASSA-PKCS1-v1_5",
      key,
      decodeBase64(m.Signature),
      new TextEncoder().encode(snsStringToSign(m)),
    );
  } catch {
    return false;
  }
}

/** Confirms a verified SubscriptionConfirmation by visiting its SubscribeURL (an SNS host only). */
export async function confirmSnsSubscription(m: SnsMessage, fetchImpl: FetchLike = fetch): Promise<boolean> {
  if (m.Type !== "SubscriptionConfirmation" || !isSnsUrl(m.SubscribeURL)) return false;
  const res = await fetchImpl(m.SubscribeURL!, { redirect: "manual" });
  return res.ok;
}

interface SesNotification {
  notificationType?: string;
  eventType?: string;
  mail?: { messageId?: string; timestamp?: string; tags?: Record<string, string[]> };
  bounce?: {
    bounceType?: string;
    bounceSubType?: string;
    timestamp?: string;
    bouncedRecipients?: { emailAddress?: string; diagnosticCode?: string }[];
  };
  complaint?: {
    timestamp?: string;
    complaintFeedbackType?: string;
    complainedRecipients?: { emailAddress?: string }[];
  };
  delivery?: { timestamp?: string; recipients?: string[] };
  reject?: { reason?: string };
  renderingFailure?: { errorMessage?: string };
}

/**
 * SES events in a verified SNS Notification (identity notifications or configuration-set event
 * publishing): one event per recipient. Permanent bounces are bounced; transient ones failed.
 */
export function parseSesNotification(m: SnsMessage): DeliveryEvent[] {
  if (m.Type !== "Notification") return [];
  const n = JSON.parse(m.Message) as SesNotification;
  const id = n.mail?.messageId;
  if (!id) return [];
  const kind = n.notificationType ?? n.eventType;
  const solicitationId = n.mail?.tags?.solicitation_id?.[0];
  const base = { provider: "ses", providerMessageId: id, ...(solicitationId ? { solicitationId } : {}) };
  const at = (t?: string) => t ?? n.mail?.timestamp ?? m.Timestamp;
  switch (kind) {
    case "Delivery":
      return (n.delivery?.recipients ?? []).map((address) => ({
        ...base,
        status: "delivered" as const,
        address,
        occurredAt: at(n.delivery?.timestamp),
      }));
    case "Bounce": {
      const status = n.bounce?.bounceType === "Permanent" ? ("bounced" as const) : ("failed" as const);
      return (n.bounce?.bouncedRecipients ?? []).map((r) => ({
        ...base,
        status,
        ...(r.emailAddress ? { address: r.emailAddress } : {}),
        reason: r.diagnosticCode ?? `${n.bounce?.bounceType ?? ""} ${n.bounce?.bounceSubType ?? ""}`.trim(),
        occurredAt: at(n.bounce?.timestamp),
      }));
    }
    case "Complaint":
      return (n.complaint?.complainedRecipients ?? []).map((r) => ({
        ...base,
        status: "complained" as const,
        ...(r.emailAddress ? { address: r.emailAddress } : {}),
        ...(n.complaint?.complaintFeedbackType ? { reason: n.complaint.complaintFeedbackType } : {}),
        occurredAt: at(n.complaint?.timestamp),
      }));
    case "Reject":
    case "Rendering Failure":
      return [
        {
          ...base,
          status: "failed",
          reason: n.reject?.reason ?? n.renderingFailure?.errorMessage ?? kind,
          occurredAt: at(),
        },
      ];
    default:
      return [];
  }
}
