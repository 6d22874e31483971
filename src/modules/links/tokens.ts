import { fromBase64Url, type KeyPurpose, purposeKey, toBase64Url } from "../../lib/crypto";

/**
 * Compact signed tokens for public links (short links, unsubscribe, feedback pages). A token carries
 * what its public route needs, so the hot path verifies an HMAC instead of reading D1:
 *   base64url(purpose ~ field ~ field ...) "." base64url(HMAC-SHA256(key, payload)[0..16])
 * 128 bits of MAC make tokens unguessable and unforgeable; the payload is readable, never secret.
 * The key is derived per purpose with HKDF (src/lib/crypto.ts deriveKey), once per isolate.
 */
export type TokenPurpose = "link" | "unsub" | "alert" | "visit";

const MAC_BYTES = 16;
const SEP = "~";
const enc = new TextEncoder();
const dec = new TextDecoder();

/** The HKDF purpose (src/lib/crypto.ts KeyPurpose) of each token purpose: one key each. */
const KEY_PURPOSE: Record<TokenPurpose, KeyPurpose> = {
  link: "link-token",
  unsub: "unsubscribe-token",
  alert: "alert-unsubscribe-token",
  visit: "click-visit",
};

const keyFor = (secret: string, purpose: TokenPurpose) => purposeKey(secret, KEY_PURPOSE[purpose]);

const legacyKeys = new Map<string, CryptoKey>();

/**
 * LEGACY, verification only: the key tokens were signed with until 2026-11-27, HMAC(secret,
 * "public-token:<purpose>:v1"), a one-step derivation of this module's own instead of the service's
 * HKDF (deriveKey). Links already sent by e-mail and SMS carry it and live long (unsubscribe links
 * must work 30 days at least, CAN-SPAM; short links as long as the message is read), so they still
 * verify. Remove this (and its branch in verifyToken) from 2027-01-26 on, 60 days after the change,
 * the same horizon as JWT_SECRET_PREVIOUS (docs/deploy.md, Rotating secrets). Cached resolved.
 */
async function legacyKeyFor(secret: string, purpose: TokenPurpose): Promise<CryptoKey> {
  const id = `${purpose}:${secret}`;
  const hit = legacyKeys.get(id);
  if (hit) return hit;
  const root = await crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const derived = await crypto.subtle.sign("HMAC", root, enc.encode(`public-token:${purpose}:v1`));
  const key = await crypto.subtle.importKey("raw", derived, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  legacyKeys.set(id, key);
  return key;
}

export async function signToken(secret: string, purpose: TokenPurpose, fields: string[]): Promise<string> {
  if (fields.some((f) => f.includes(SEP))) throw new Error("token fields must not contain ~");
  const payload = toBase64Url(enc.encode([purpose, ...fields].join(SEP)));
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await keyFor(secret, purpose), enc.encode(payload)));
  return `${payload}.${toBase64Url(mac.slice(0, MAC_BYTES))}`;
}

/** A keyed digest (base64url, 128 bits) of `text` under the purpose's key: not a token, nothing to verify. */
export async function keyedDigest(secret: string, purpose: TokenPurpose, text: string): Promise<string> {
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await keyFor(secret, purpose), enc.encode(text)));
  return toBase64Url(mac.slice(0, MAC_BYTES));
}

/** The token's fields, or null when it is malformed, of another purpose, or not signed by us. */
export async function verifyToken(secret: string, purpose: TokenPurpose, token: string): Promise<string[] | null> {
  const dot = token.indexOf(".");
  if (dot <= 0 || token.length > 512) return null;
  const payload = token.slice(0, dot);
  let mac: Uint8Array;
  let fields: string[];
  try {
    mac = fromBase64Url(token.slice(dot + 1));
    fields = dec.decode(fromBase64Url(payload)).split(SEP);
  } catch {
    return null;
  }
  if (mac.length !== MAC_BYTES || fields[0] !== purpose) return null;
  // one spelling per token: atob ignores the unused bits of the last character, so without this a
  // signed MAC would have 16 spellings (links that differ yet verify, and tamper tests that pass by luck)
  if (toBase64Url(mac) !== token.slice(dot + 1)) return null;
  const data = enc.encode(payload);
  if (macMatches(new Uint8Array(await crypto.subtle.sign("HMAC", await keyFor(secret, purpose), data)), mac))
    return fields.slice(1);
  // a token issued before the HKDF keys (see legacyKeyFor): costs a second HMAC for old links only
  if (macMatches(new Uint8Array(await crypto.subtle.sign("HMAC", await legacyKeyFor(secret, purpose), data)), mac))
    return fields.slice(1);
  return null;
}

/** Constant-time compare of the truncated MAC. */
function macMatches(full: Uint8Array, mac: Uint8Array): boolean {
  let diff = 0;
  for (let i = 0; i < MAC_BYTES; i++) diff |= full[i]! ^ mac[i]!;
  return diff === 0;
}

/** What a short link carries: enough to redirect without reading the solicitation. */
export interface LinkClaims {
  solicitationId: string;
  tenantId: string;
  locationId: string;
  /** Campaign.reviewDestination, or "custom" when the solicitation has its own destinationUrl */
  destination: string;
}

export const mintLinkToken = (secret: string, c: LinkClaims) =>
  signToken(secret, "link", [c.solicitationId, c.tenantId, c.locationId, c.destination]);

/** The first secret's fields whose MAC matches; `secrets` is jwtSecrets(env) (current, then previous). */
export async function verifyWithAny(
  secrets: string | readonly string[],
  purpose: TokenPurpose,
  token: string,
): Promise<string[] | null> {
  for (const secret of typeof secrets === "string" ? [secrets] : secrets) {
    const fields = await verifyToken(secret, purpose, token);
    if (fields) return fields;
  }
  return null;
}

export async function readLinkToken(secrets: string | readonly string[], token: string): Promise<LinkClaims | null> {
  const f = await verifyWithAny(secrets, "link", token);
  if (f?.length !== 4) return null;
  return { solicitationId: f[0]!, tenantId: f[1]!, locationId: f[2]!, destination: f[3]! };
}

/** What an unsubscribe link carries: the contact and the channel to stop. */
export interface UnsubscribeClaims {
  tenantId: string;
  contactId: string;
  channel: string;
  solicitationId: string;
}

export const mintUnsubscribeToken = (secret: string, c: UnsubscribeClaims) =>
  signToken(secret, "unsub", [c.tenantId, c.contactId, c.channel, c.solicitationId]);

export async function readUnsubscribeToken(
  secrets: string | readonly string[],
  token: string,
): Promise<UnsubscribeClaims | null> {
  const f = await verifyWithAny(secrets, "unsub", token);
  if (f?.length !== 4) return null;
  return { tenantId: f[0]!, contactId: f[1]!, channel: f[2]!, solicitationId: f[3]! };
}
