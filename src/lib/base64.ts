/**
 * base64 as people and other systems write it, read by one decoder.
 *
 * Two families of base64 text reach the service:
 * - our own tokens (link tokens, cursors): base64url, one canonical spelling, read strictly by
 *   `fromBase64Url` in src/lib/crypto.ts;
 * - values made elsewhere: keys (`openssl rand -base64 32`, Node's `toString("base64")` in
 *   scripts/dev.mjs and setup:cloudflare), webhook secrets (`whsec_` + base64), provider signatures,
 *   certificates and SAML responses (wrapped at 64 or 76 columns), HTTP Basic credentials. Those come
 *   in the standard alphabet (`+` `/`) or the URL one (`-` `_`), padded or not, sometimes with line
 *   breaks. `decodeBase64` reads every one of those spellings; nothing else in src/ may call `atob`,
 *   `Buffer.from(.., "base64")` or `Uint8Array.fromBase64` on such a value
 *   (test/lib/base64.test.ts enumerates the callers).
 */

const nativeBase64 = typeof Uint8Array.fromBase64 === "function";
const WHITESPACE = /[\t\n\f\r ]+/g;
/** both alphabets, then at most two "=" at the end */
const SHAPE = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * The bytes of `text` in any base64 spelling: standard or URL alphabet (or a mix, which is
 * unambiguous), with or without padding, with whitespace or line breaks anywhere. Throws a
 * SyntaxError on anything else (a stray character, padding in the middle, a lone final character).
 */
export function decodeBase64(text: string): Uint8Array {
  const compact = text.replace(WHITESPACE, "");
  if (!SHAPE.test(compact)) throw new SyntaxError("not base64");
  const body = compact.replace(/=+$/, "");
  if (body.length % 4 === 1) throw new SyntaxError("not base64: truncated");
  const standard = body.replace(/-/g, "+").replace(/_/g, "/");
  if (nativeBase64) return Uint8Array.fromBase64(standard, { alphabet: "base64", lastChunkHandling: "loose" });
  const binary = atob(standard + "=".repeat((4 - (standard.length % 4)) % 4));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** Standard base64 with padding (RFC 4648 section 4), what providers and Standard Webhooks expect. */
export function encodeBase64(bytes: Uint8Array): string {
  if (nativeBase64) return bytes.toBase64();
  let binary = "";
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]!);
  return btoa(binary);
}

/** A key given as base64 of exactly `length` bytes, in any spelling `decodeBase64` reads; null otherwise. */
export function decodeKey(text: string, length: number): Uint8Array | null {
  try {
    const bytes = decodeBase64(text);
    return bytes.length === length ? bytes : null;
  } catch {
    return null;
  }
}

/** Base64 of UTF-8 text (HTTP Basic credentials, a SAML response) as the text; throws on either layer's error. */
export function decodeBase64Text(text: string): string {
  return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(decodeBase64(text));
}
