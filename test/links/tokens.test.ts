import { describe, expect, it } from "vitest";
import { deriveKey, fromBase64Url, hmacBase64Url, type KeyPurpose, toBase64Url } from "../../src/lib/crypto";
import { mintAlertUnsubscribeToken, readAlertUnsubscribeToken } from "../../src/modules/alerts/tokens";
import {
  mintLinkToken,
  mintUnsubscribeToken,
  readLinkToken,
  readUnsubscribeToken,
  signToken,
  verifyToken,
} from "../../src/modules/links/tokens";

const SECRET = "test-secret-0123456789-0123456789-abcdef";
const claims = { solicitationId: "s1abc", tenantId: "t1abc", locationId: "l1abc", destination: "google" };

describe("public link tokens", () => {
  it("round-trips the claims", async () => {
    const token = await mintLinkToken(SECRET, claims);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(await readLinkToken(SECRET, token)).toEqual(claims);
  });

  it("refuses a token signed with another secret, a tampered payload or MAC, and garbage", async () => {
    const token = await mintLinkToken(SECRET, claims);
    expect(await readLinkToken("another-secret-0123456789-0123456789", token)).toBeNull();
    const [payload, mac] = token.split(".") as [string, string];
    const forged = await mintLinkToken(SECRET, { ...claims, solicitationId: "s2xyz" });
    expect(await readLinkToken(SECRET, `${forged.split(".")[0]}.${mac}`)).toBeNull();
    // tamper the first character: the last of 22 carries 2 bits only (and "A" may decode to the same bytes)
    expect(await readLinkToken(SECRET, `${payload}.${mac[0] === "A" ? "B" : "A"}${mac.slice(1)}`)).toBeNull();
    for (const bad of ["", ".", "abc", "a.b", `${payload}.`, "x".repeat(600)])
      expect(await readLinkToken(SECRET, bad)).toBeNull();
  });

  it("refuses a MAC spelled another way that decodes to the same bytes (only the canonical base64url is a token)", async () => {
    const token = await mintLinkToken(SECRET, claims);
    const [payload, mac] = token.split(".") as [string, string];
    // the 22nd character carries 2 bits of the MAC and 4 unused bits: set an unused one
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const last = alphabet[alphabet.indexOf(mac.at(-1)!) | 1]!;
    const respelled = `${payload}.${mac.slice(0, -1)}${last}`;
    expect(fromBase64Url(respelled.split(".")[1]!)).toEqual(fromBase64Url(mac));
    expect(respelled).not.toBe(token);
    expect(await readLinkToken(SECRET, respelled)).toBeNull();
    expect(await readLinkToken(SECRET, token)).toEqual(claims);
  });

  it("does not accept a token of one purpose as another", async () => {
    const unsub = await mintUnsubscribeToken(SECRET, {
      tenantId: "t",
      contactId: "c",
      channel: "email",
      solicitationId: "s",
    });
    expect(await readUnsubscribeToken(SECRET, unsub)).toEqual({
      tenantId: "t",
      contactId: "c",
      channel: "email",
      solicitationId: "s",
    });
    expect(await readLinkToken(SECRET, unsub)).toBeNull();
    expect(await verifyToken(SECRET, "link", await signToken(SECRET, "unsub", ["a"]))).toBeNull();
  });

  it("mints distinct tokens for distinct solicitations", async () => {
    const tokens = new Set(
      await Promise.all(
        Array.from({ length: 50 }, (_, i) => mintLinkToken(SECRET, { ...claims, solicitationId: `s${i}` })),
      ),
    );
    expect(tokens.size).toBe(50);
  });
});

/** The signing scheme before the HKDF keys (links/tokens.ts legacyKeyFor), written out here so it stays pinned. */
async function legacyToken(secret: string, purpose: string, fields: string[]): Promise<string> {
  const enc = new TextEncoder();
  const root = await crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const derived = await crypto.subtle.sign("HMAC", root, enc.encode(`public-token:${purpose}:v1`));
  const key = await crypto.subtle.importKey("raw", derived, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const payload = toBase64Url(enc.encode([purpose, ...fields].join("~")));
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(payload)));
  return `${payload}.${toBase64Url(mac.slice(0, 16))}`;
}

/** A token whose MAC is made with the HKDF key of `keyPurpose`, whatever purpose its payload names. */
async function hkdfToken(secret: string, keyPurpose: KeyPurpose, purpose: string, fields: string[]) {
  const payload = toBase64Url(new TextEncoder().encode([purpose, ...fields].join("~")));
  const mac = fromBase64Url(await hmacBase64Url(await deriveKey(secret, keyPurpose), payload));
  return `${payload}.${toBase64Url(mac.slice(0, 16))}`;
}

describe("keys derived per purpose (HKDF) for public link tokens", () => {
  const unsubClaims = { tenantId: "t", contactId: "c", channel: "email", solicitationId: "s" };
  const linkFields = [claims.solicitationId, claims.tenantId, claims.locationId, claims.destination];

  it("signs new tokens with the HKDF key of their purpose, not the older one-step derivation", async () => {
    expect(await mintLinkToken(SECRET, claims)).toBe(await hkdfToken(SECRET, "link-token", "link", linkFields));
    expect(await mintUnsubscribeToken(SECRET, unsubClaims)).toBe(
      await hkdfToken(SECRET, "unsubscribe-token", "unsub", ["t", "c", "email", "s"]),
    );
    expect(await mintAlertUnsubscribeToken(SECRET, { tenantId: "t", subscriptionId: "as1", kind: "digest" })).toBe(
      await hkdfToken(SECRET, "alert-unsubscribe-token", "alert", ["t", "as1", "digest"]),
    );
    expect(await mintLinkToken(SECRET, claims)).not.toBe(await legacyToken(SECRET, "link", linkFields));
  });

  it("does not verify a MAC made with another purpose's key, even over this purpose's payload", async () => {
    const wrongKey = await hkdfToken(SECRET, "unsubscribe-token", "link", linkFields);
    expect(await readLinkToken(SECRET, wrongKey)).toBeNull();
    const confirmKey = await hkdfToken(SECRET, "mcp-confirmation", "unsub", ["t", "c", "email", "s"]);
    expect(await readUnsubscribeToken(SECRET, confirmKey)).toBeNull();
    expect(
      await readAlertUnsubscribeToken(SECRET, await hkdfToken(SECRET, "link-token", "alert", ["t", "a", "instant"])),
    ).toBeNull();
  });

  it("still verifies tokens issued before the change (links already sent), under the current or previous secret", async () => {
    const previous = "previous-secret-0123456789-0123456789-x";
    expect(await readLinkToken(SECRET, await legacyToken(SECRET, "link", linkFields))).toEqual(claims);
    expect(await readUnsubscribeToken(SECRET, await legacyToken(SECRET, "unsub", ["t", "c", "email", "s"]))).toEqual(
      unsubClaims,
    );
    expect(
      await readAlertUnsubscribeToken(
        [SECRET, previous],
        await legacyToken(previous, "alert", ["t", "as1", "instant"]),
      ),
    ).toEqual({ tenantId: "t", subscriptionId: "as1", kind: "instant" });
    // the fallback is the old derivation of the same purpose, nothing wider
    expect(await readLinkToken(SECRET, await legacyToken(SECRET, "unsub", linkFields))).toBeNull();
  });

  it("refuses forgeries: a MAC with the raw secret, another secret's legacy MAC, a tampered legacy token", async () => {
    const payload = toBase64Url(new TextEncoder().encode(["link", ...linkFields].join("~")));
    const raw = await crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(SECRET),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const rawMac = new Uint8Array(await crypto.subtle.sign("HMAC", raw, new TextEncoder().encode(payload)));
    expect(await readLinkToken(SECRET, `${payload}.${toBase64Url(rawMac.slice(0, 16))}`)).toBeNull();
    expect(await readLinkToken(SECRET, await legacyToken("x".repeat(40), "link", linkFields))).toBeNull();
    const legacy = await legacyToken(SECRET, "link", linkFields);
    const other = await legacyToken(SECRET, "link", ["s9", ...linkFields.slice(1)]);
    expect(await readLinkToken(SECRET, `${other.split(".")[0]}.${legacy.split(".")[1]}`)).toBeNull();
  });
});
