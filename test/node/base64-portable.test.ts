import { describe, expect, it } from "vitest";
import { decodeBase64, encodeBase64 } from "../../src/lib/base64";
import { expectBase64Vectors } from "../fixtures/base64-vectors";

// src/lib/base64.ts uses the runtime's own base64 where it has it (workerd: test/lib/base64.test.ts) and
// atob/btoa where it does not: Node 20, which runs this file and the scripts.
describe("decodeBase64, the portable fallback (Node 20)", () => {
  it("runs here without the TC39 methods, so this file tests the fallback", () => {
    expect(typeof (Uint8Array as { fromBase64?: unknown }).fromBase64).toBe("undefined");
  });

  it("reads every spelling the runtime's own reads, and refuses the same", () => {
    expectBase64Vectors(decodeBase64, encodeBase64);
  });
});
