import { scrypt as scryptCb, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";
import { decodeBase64, decodeKey, encodeBase64 } from "./base64";
import { ApiError } from "./errors";

const scrypt = promisify(scryptCb) as (
  password: string | Uint8Array,
  salt: Uint8Array,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

const enc = new TextEncoder();

/**
 * The runtime's own base64 (TC39 Uint8Array.fromBase64 / toBase64, in workerd's V8): every public
 * link's token is decoded and re-encoded per request, and the string round trips through atob/btoa and
 * three regular expressions were a tenth of the short-link redirect's CPU (docs/performance.md, Hot
 * paths). Node 20, which runs the scripts and node tests that import this file, lacks them: there the
 * portable spelling below is used.
 */
const nativeBase64 = typeof Uint8Array.fromBase64 === "function";

export const toBase64Url = (bytes: Uint8Array): string =>
  nativeBase64
    ? bytes.toBase64({ alphabet: "base64url", omitPadding: true })
    : btoa(String.fromCharCode(...bytes))
        .replace(/\+/g, "-")
        .replace(/\//g, "_")
        .replace(/=+$/, "");

/** Lenient about padding and whitespace as atob is; anything outside the base64url alphabet throws. */
export const fromBase64Url = (s: string): Uint8Array => {
  if (nativeBase64) return Uint8Array.fromBase64(s, { alphabet: "base64url" });
  if (/[+/]/.test(s)) throw new SyntaxError("not base64url");
  const b64 = s.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (s.length % 4)) % 4);
  return binaryToBytes(atob(b64));
};

/**
 * A binary string's bytes. A plain loop: `Uint8Array.from(string, mapFn)` iterates the string and
 * calls the function per character, and was 6% of the short-link redirect's CPU (docs/performance.md).
 */
function binaryToBytes(binary: string): Uint8Array {
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** PHC strings write base64 without padding (the PHC string format) */
const toBase64 = (bytes: Uint8Array) => encodeBase64(bytes).replace(/=+$/, "");

export const randomBytes = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));

/** An unguessable token (default 256 bits), url-safe. */
export const randomToken = (bytes = 32): string => toBase64Url(randomBytes(bytes));

export async function sha256Hex(input: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", enc.encode(input));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Constant-time comparison of two strings (lengths are compared first, which leaks only the length). */
export function safeEqual(a: string, b: string): boolean {
  const ab = enc.encode(a);
  const bb = enc.encode(b);
  if (ab.length !== bb.length) return false;
  return timingSafeEqual(ab, bb);
}

// ---- passwords: scrypt in PHC format, parameters stored with the hash so they can be raised later

export interface ScryptParams {
  ln: number;
  r: number;
  p: number;
}

/** N = 2^14, r = 8, p = 5: an OWASP row (16 MiB) */
export const SCRYPT_PARAMS: ScryptParams = { ln: 14, r: 8, p: 5 };
const KEY_LEN = 32;
export const MAX_PASSWORD_BYTES = 1024;

export async function hashPassword(password: string, params: ScryptParams = SCRYPT_PARAMS): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, params);
  return `$scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${toBase64(salt)}$${toBase64(key)}`;
}

export interface PasswordCheck {
  ok: boolean;
  /** true when the stored hash uses weaker parameters than today's and should be replaced */
  needsRehash: boolean;
}

export async function verifyPassword(password: string, phc: string): Promise<PasswordCheck> {
  const m = /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(phc);
  if (!m) return { ok: false, needsRehash: false };
  const params = { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  const expected = decodeBase64(m[5]!);
  const actual = await derive(password, decodeBase64(m[4]!), params, expected.length);
  const ok = actual.length === expected.length && timingSafeEqual(actual, expected);
  const needsRehash = params.ln < SCRYPT_PARAMS.ln || params.r < SCRYPT_PARAMS.r || params.p < SCRYPT_PARAMS.p;
  return { ok, needsRehash };
}

function derive(password: string, salt: Uint8Array, params: ScryptParams, len = KEY_LEN) {
  const N = 2 ** params.ln;
  return scrypt(password.normalize("NFKC"), salt, len, {
    N,
    r: params.r,
    p: params.p,
    maxmem: 128 * N * params.r * 2,
  });
}

// ---- secrets at rest: AES-256-GCM, iv prepended, base64url

const aesKeys = new Map<string, CryptoKey>();

/**
 * ENCRYPTION_KEY as an AES key: 32 bytes of base64 in any spelling (src/lib/base64.ts: the key comes
 * from `openssl rand -base64 32`, scripts/dev.mjs or setup:cloudflare, standard alphabet, padded; the
 * start-up check in src/env.ts reads it with the same decoder). Imported once per isolate per key.
 */
async function aesKey(base64Key: string): Promise<CryptoKey> {
  const hit = aesKeys.get(base64Key);
  if (hit) return hit;
  const raw = decodeKey(base64Key, 32);
  if (!raw) throw new Error("ENCRYPTION_KEY must be 32 bytes, base64");
  const key = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
  aesKeys.set(base64Key, key);
  return key;
}

export async function encryptSecret(plain: string, base64Key: string): Promise<string> {
  const iv = randomBytes(12);
  const ct = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await aesKey(base64Key), enc.encode(plain));
  const out = new Uint8Array(iv.length + ct.byteLength);
  out.set(iv);
  out.set(new Uint8Array(ct), iv.length);
  return `v1.${toBase64Url(out)}`;
}

/**
 * Opens a value sealed by encryptSecret. During a key rotation `previousKey` (ENCRYPTION_KEY_PREVIOUS)
 * opens what the old key sealed: AES-GCM authenticates, so a wrong key fails and the next is tried.
 */
export async function decryptSecret(sealed: string, base64Key: string, previousKey?: string): Promise<string> {
  if (!sealed.startsWith("v1.")) throw new Error("unknown secret format");
  const bytes = fromBase64Url(sealed.slice(3));
  const open = async (key: string) =>
    crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes.slice(0, 12) }, await aesKey(key), bytes.slice(12));
  let pt: ArrayBuffer;
  try {
    pt = await open(base64Key);
  } catch (err) {
    if (!previousKey) throw err;
    pt = await open(previousKey);
  }
  return new TextDecoder().decode(pt);
}

/** The two secrets of the environment (src/env.ts) that seal and open credentials at rest. */
interface AtRestKeys {
  ENCRYPTION_KEY?: string;
  ENCRYPTION_KEY_PREVIOUS?: string;
}

/** The configured key, or a 500 naming what cannot be done without it (`what`: "Webhook secrets"). */
function configuredKey(env: AtRestKeys, what: string): string {
  if (!env.ENCRYPTION_KEY) throw new ApiError("INTERNAL", `${what} cannot be stored: ENCRYPTION_KEY is not configured`);
  return env.ENCRYPTION_KEY;
}

/** Seals `plain` with the deployment's ENCRYPTION_KEY: every credential the service stores goes through here. */
export const sealAtRest = (env: AtRestKeys, plain: string, what: string) =>
  encryptSecret(plain, configuredKey(env, what));

/** Opens what `sealAtRest` sealed, with ENCRYPTION_KEY_PREVIOUS during a rotation (docs/deploy.md). */
export const openAtRest = (env: AtRestKeys, sealed: string, what: string) =>
  decryptSecret(sealed, configuredKey(env, what), env.ENCRYPTION_KEY_PREVIOUS);

// ---- keys per purpose: HKDF-SHA-256 (RFC 5869) from one configured secret

/** Purposes a key is derived for; a new use of a secret adds its own name here (never reuses one). */
export type KeyPurpose =
  | "mcp-confirmation"
  // an MCP session's principal binding, kept in its Durable Object instead of the credential (mcp/session-binding.ts)
  | "mcp-session-principal"
  // the reference that ties a session's tool calls together in tenant-readable audit rows (mcp/audit.ts)
  | "mcp-audit-session"
  | "oauth-consent-ticket"
  // the CSRF token of a browser session's forms (src/middleware/browser-session.ts)
  | "session-csrf"
  // public link tokens (src/modules/links/tokens.ts) and the counted click's id
  | "link-token"
  | "unsubscribe-token"
  | "alert-unsubscribe-token"
  | "click-visit";

const HKDF_SALT = enc.encode("reputation-ops/hkdf/v1");

/**
 * An HMAC-SHA-256 key for one purpose, derived from `secret` with HKDF (WebCrypto). Keys of different
 * purposes are independent: a value signed for one purpose never verifies for another, and the raw
 * secret (JWT_SECRET signs session JWTs) is never used as the key of anything else.
 */
export async function deriveKey(secret: string, purpose: KeyPurpose): Promise<CryptoKey> {
  if (!secret || secret.length < 32) throw new Error("the secret a key is derived from must be at least 32 characters");
  const ikm = await crypto.subtle.importKey("raw", enc.encode(secret), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: HKDF_SALT, info: enc.encode(purpose) },
    ikm,
    { name: "HMAC", hash: "SHA-256", length: 256 },
    false,
    ["sign", "verify"],
  );
}

/** HMAC-SHA-256 of `data` with a derived key, base64url. */
export async function hmacBase64Url(key: CryptoKey, data: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(data))));
}

const purposeKeys = new Map<string, CryptoKey>();

/**
 * deriveKey, once per isolate per (secret, purpose): for hot paths (a redirect verifies a token on
 * every open). The resolved key is cached, never the promise: a promise shared with another request
 * would resume in that request's context (workerd cancels it if that request ends first). Keyed by
 * the secret too, so a rotated or test secret gets its own key.
 */
export async function purposeKey(secret: string, purpose: KeyPurpose): Promise<CryptoKey> {
  const id = `${purpose}\u0000${secret}`;
  const hit = purposeKeys.get(id);
  if (hit) return hit;
  const key = await deriveKey(secret, purpose);
  purposeKeys.set(id, key);
  return key;
}
