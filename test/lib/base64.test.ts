import { describe, expect, it } from "vitest";
import { decodeBase64, decodeBase64Text, decodeKey, encodeBase64 } from "../../src/lib/base64";
import { expectBase64Vectors } from "../fixtures/base64-vectors";

describe("decodeBase64: base64 as others write it (the runtime's own decoder)", () => {
  it("runs on the runtime's Uint8Array.fromBase64 here", () => {
    expect(typeof Uint8Array.fromBase64).toBe("function");
  });

  it("reads both alphabets, padded or not, with line breaks; refuses anything else", () => {
    expectBase64Vectors(decodeBase64, encodeBase64);
  });

  it("reads a key only at its length", () => {
    expect(decodeKey("+/+/", 3)).toEqual(Uint8Array.from([0xfb, 0xff, 0xbf]));
    expect(decodeKey("+/+/", 4)).toBeNull();
    expect(decodeKey("not base64!", 3)).toBeNull();
  });

  it("reads UTF-8 text (HTTP Basic credentials with a non-ASCII password, RFC 7617)", () => {
    const encoded = encodeBase64(new TextEncoder().encode("user:pässwörd"));
    expect(decodeBase64Text(encoded)).toBe("user:pässwörd");
    expect(() => decodeBase64Text(encodeBase64(Uint8Array.from([0xff, 0xfe, 0x00])))).toThrow();
  });
});
