import { decodeBase64, encodeBase64 } from "../../lib/base64";
import { randomBytes } from "../../lib/crypto";

/** Standard Webhooks secrets: "whsec_" + base64 of 32 random bytes. */
export const SECRET_PREFIX = "whsec_";

export const newWebhookSecret = () => SECRET_PREFIX + encodeBase64(randomBytes(32));

export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/**
 * The Standard Webhooks headers for one request: signature "v1," + base64 HMAC-SHA256 over
 * "{id}.{timestamp}.{body}" keyed with the base64-decoded secret (after the whsec_ prefix).
 */
export async function signWebhook(
  secret: string,
  messageId: string,
  timestampSeconds: number,
  body: string,
): Promise<SignedHeaders> {
  const key = await crypto.subtle.importKey(
    "raw",
    decodeBase64(secret.slice(SECRET_PREFIX.length)),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign(
    "HMAC",
    key,
    new TextEncoder().encode(`${messageId}.${timestampSeconds}.${body}`),
  );
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": `v1,${encodeBase64(new Uint8Array(mac))}`,
  };
}
