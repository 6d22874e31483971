import { describe, expect, it } from "vitest";
import { fromBase64Url, toBase64Url } from "../../src/lib/crypto";
import { expectVectors } from "../fixtures/base64url-vectors";

// src/lib/crypto.ts uses the runtime's base64 where it has one (workerd: test/lib/primitives.test.ts)
// and a portable spelling where it does not: Node 20, which runs this file, the scripts and the benches.
describe("base64url, the portable fallback (Node 20)", () => {
  it("runs here without the TC39 methods, so this file tests the fallback", () => {
    expect(typeof (Uint8Array as { fromBase64?: unknown }).fromBase64).toBe("undefined");
  });

  it("writes and reads the same strings as the runtime's own, and refuses the same", () => {
    expectVectors(toBase64Url, fromBase64Url);
  });
});
