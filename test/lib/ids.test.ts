import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";

describe("newId", () => {
  const ids = Array.from({ length: 20_000 }, newId);

  it("is 24 lower-case base-36 characters starting with a letter, and never repeats", () => {
    for (const id of ids) expect(id).toMatch(/^[a-z][0-9a-z]{23}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("uses every character about equally often (no modulo bias)", () => {
    const counts = new Map<string, number>();
    for (const id of ids) for (const ch of id.slice(1)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(36);
    const expected = (ids.length * 23) / 36;
    // chi-squared with 35 degrees of freedom: 66.6 is its 0.999 quantile; a byte % 36 bias scores ~900
    const chi2 = [...counts.values()].reduce((s, n) => s + (n - expected) ** 2 / expected, 0);
    expect(chi2).toBeLessThan(66.6);
  });
});
