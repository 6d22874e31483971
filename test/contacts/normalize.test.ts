import { describe, expect, it } from "vitest";
import { mergePatch } from "../../src/modules/contacts/merge-patch";
import { foldText, nameKeys, phoneSearchPrefix, prefixRange, toE164 } from "../../src/modules/contacts/normalize";

describe("contact normalisation", () => {
  it("reads phones as E.164, national numbers in the locale's region (default US)", () => {
    expect(toE164("(212) 555-0100")).toBe("+12125550100");
    expect(toE164("020 7946 0958", "en-GB")).toBe("+442079460958");
    expect(toE164("030 1234567", "de-DE")).toBe("+49301234567");
    expect(toE164("+44 20 7946 0958", "en-US")).toBe("+442079460958");
    expect(toE164("+1 555 0100")).toBeNull();
    expect(toE164("call me")).toBeNull();
  });

  it("folds names for search in both orders", () => {
    expect(foldText("  ZOË   Núñez ")).toBe("zoe nunez");
    expect(nameKeys("José", "Núñez Ortega")).toEqual({
      nameKey: "jose nunez ortega",
      nameKeyReversed: "nunez ortega jose",
    });
    expect(nameKeys(null, "Smith")).toEqual({ nameKey: "smith", nameKeyReversed: "smith" });
    expect(nameKeys(null, " ")).toEqual({ nameKey: null, nameKeyReversed: null });
  });

  it("bounds a prefix range, also at the top of Unicode", () => {
    expect(prefixRange("ann")).toEqual(["ann", "ano"]);
    const [low, high] = prefixRange("a\u{10FFFF}");
    expect([low < high, high]).toEqual([true, "b"]);
    expect(() => prefixRange("\u{10FFFF}")).not.toThrow();
  });

  it("recognises phone-like search terms only", () => {
    expect(phoneSearchPrefix("+1 (415) 555")).toBe("+1415555");
    expect(phoneSearchPrefix("415-55")).toBe("+41555");
    expect(phoneSearchPrefix("ann")).toBeNull();
    expect(phoneSearchPrefix("()")).toBeNull();
  });

  it("merges metadata as a JSON merge patch", () => {
    expect(mergePatch({ a: 1, b: { c: 2, d: 3 }, e: 4 }, { b: { c: null, x: 1 }, e: null, f: [1] })).toEqual({
      a: 1,
      b: { d: 3, x: 1 },
      f: [1],
    });
  });
});
