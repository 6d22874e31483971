import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { backoffSeconds } from "../../src/lib/backoff";
import {
  decryptSecret,
  deriveKey,
  encryptSecret,
  fromBase64Url,
  hashPassword,
  hmacBase64Url,
  safeEqual,
  sha256Hex,
  toBase64Url,
  verifyPassword,
} from "../../src/lib/crypto";
import { ApiError } from "../../src/lib/errors";
import { signSessionToken, verifySessionToken } from "../../src/lib/jwt";
import { decodeCursor, encodeCursor } from "../../src/lib/pagination";
import { expectVectors } from "../fixtures/base64url-vectors";

describe("passwords (scrypt, PHC)", () => {
  it("hashes in PHC format with today's parameters and verifies", async () => {
    const phc = await hashPassword("correct horse battery");
    expect(phc).toMatch(/^\$scrypt\$ln=14,r=8,p=5\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(await verifyPassword("correct horse battery", phc)).toEqual({ ok: true, needsRehash: false });
    expect((await verifyPassword("correct horse batterz", phc)).ok).toBe(false);
  });

  it("salts every hash", async () => {
    expect(await hashPassword("same password")).not.toBe(await hashPassword("same password"));
  });

  it("verifies a hash made with weaker parameters and asks for a rehash", async () => {
    const weak = await hashPassword("legacy password", { ln: 10, r: 8, p: 1 });
    expect(await verifyPassword("legacy password", weak)).toEqual({ ok: true, needsRehash: true });
  });

  it("rejects a malformed stored hash instead of throwing", async () => {
    expect(await verifyPassword("x", "$pbkdf2$whatever")).toEqual({ ok: false, needsRehash: false });
  });
});

describe("secrets at rest", () => {
  it("round-trips through AES-GCM and never stores the plain text", async () => {
    const sealed = await encryptSecret("sk_live_123", env.ENCRYPTION_KEY!);
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain("sk_live_123");
    expect(await decryptSecret(sealed, env.ENCRYPTION_KEY!)).toBe("sk_live_123");
    const tampered = sealed.slice(0, -2) + (sealed.endsWith("A") ? "BB" : "AA");
    await expect(decryptSecret(tampered, env.ENCRYPTION_KEY!)).rejects.toThrow();
  });

  it("hashes tokens with SHA-256 and compares in constant time", async () => {
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(safeEqual("abc", "abc")).toBe(true);
    expect(safeEqual("abc", "abd")).toBe(false);
    expect(safeEqual("abc", "abcd")).toBe(false);
  });
});

describe("session JWT", () => {
  it("carries sub, sid, iat, exp (8 h), iss and aud, and refuses another audience or an expired token", async () => {
    const now = new Date();
    const token = await signSessionToken(env, "user_1", "session_1", now);
    const payload = JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")));
    expect(payload).toMatchObject({ sub: "user_1", sid: "session_1", iss: env.JWT_ISSUER, aud: env.JWT_AUDIENCE });
    expect(payload.exp - payload.iat).toBe(8 * 3600);
    expect(await verifySessionToken(env, token)).toMatchObject({ userId: "user_1", sessionId: "session_1" });
    expect(await verifySessionToken({ ...env, JWT_AUDIENCE: "other" }, token)).toBeNull();
    const old = await signSessionToken(env, "user_1", "session_1", new Date(Date.now() - 9 * 3600 * 1000));
    expect(await verifySessionToken(env, old)).toBeNull();
  });
});

describe("cursors", () => {
  it("round-trips and rejects garbage with a VALIDATION_ERROR", () => {
    const c = encodeCursor(["2026-01-01T00:00:00.000Z", "abc"]);
    expect(decodeCursor(c)).toEqual(["2026-01-01T00:00:00.000Z", "abc"]);
    for (const bad of ["", "!!!", encodeCursor(["x", "y"]).slice(0, 4), btoa('{"a":1}')]) {
      expect(() => decodeCursor(bad)).toThrow(ApiError);
    }
  });
});

describe("backoff", () => {
  it("grows exponentially within [ceiling/2, ceiling] and caps", () => {
    expect(backoffSeconds(1, 10, 3600, () => 0)).toBe(5);
    expect(backoffSeconds(1, 10, 3600, () => 1)).toBe(10);
    expect(backoffSeconds(4, 10, 3600, () => 1)).toBe(80);
    expect(backoffSeconds(30, 10, 3600, () => 1)).toBe(3600);
  });
});

describe("keys derived per purpose (HKDF)", () => {
  it("a derived key signs differently from the raw secret and is stable for one purpose", async () => {
    const secret = "s".repeat(32);
    const derived = await hmacBase64Url(await deriveKey(secret, "mcp-confirmation"), "payload");
    expect(await hmacBase64Url(await deriveKey(secret, "mcp-confirmation"), "payload")).toBe(derived);
    const raw = await crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const rawMac = toBase64Url(
      new Uint8Array(await crypto.subtle.sign("HMAC", raw, new TextEncoder().encode("payload"))),
    );
    expect(derived).not.toBe(rawMac);
    expect(await hmacBase64Url(await deriveKey("t".repeat(32), "mcp-confirmation"), "payload")).not.toBe(derived);
    await expect(deriveKey("short", "mcp-confirmation")).rejects.toThrow();
  });
});

describe("base64url", () => {
  // guards the loop that replaced Uint8Array.from(atob(...), mapFn) on the redirect's hot path
  it("round-trips every byte value and every padding length", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect([...fromBase64Url(toBase64Url(all))]).toEqual([...all]);
    for (const n of [0, 1, 2, 3, 4])
      expect([...fromBase64Url(toBase64Url(all.slice(0, n)))]).toEqual([...all.slice(0, n)]);
    expect([...fromBase64Url("-_8")]).toEqual([0xfb, 0xff]);
  });
});

describe("base64url, the runtime's own (workerd)", () => {
  it("is the TC39 Uint8Array.fromBase64/toBase64 here, not the portable fallback", () => {
    expect(typeof Uint8Array.fromBase64).toBe("function");
  });

  it("writes and reads the shared vectors, and refuses what is not base64url", () => {
    expectVectors(toBase64Url, fromBase64Url);
  });
});
