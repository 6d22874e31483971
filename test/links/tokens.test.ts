import { describe, expect, it } from "vitest";
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
    expect(await readLinkToken(SECRET, `${payload}.${mac.slice(0, -1)}A`)).toBeNull();
    for (const bad of ["", ".", "abc", "a.b", `${payload}.`, "x".repeat(600)])
      expect(await readLinkToken(SECRET, bad)).toBeNull();
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
