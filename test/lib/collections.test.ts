import { describe, expect, it } from "vitest";
import { groupBy, groupMap } from "../../src/lib/collections";

describe("groupBy / groupMap (src/lib/collections.ts)", () => {
  it("groups by key, keys in order of first appearance, items in input order", () => {
    const rows = [
      { t: "b", id: 1 },
      { t: "a", id: 2 },
      { t: "b", id: 3 },
    ];
    expect([...groupBy(rows, (r) => r.t)]).toEqual([
      ["b", [rows[0], rows[2]]],
      ["a", [rows[1]]],
    ]);
    expect([
      ...groupMap(
        rows,
        (r) => r.t,
        (r) => r.id,
      ),
    ]).toEqual([
      ["b", [1, 3]],
      ["a", [2]],
    ]);
  });

  it("keeps keys of any type apart by identity (numbers are not strings) and gives an empty map for no items", () => {
    expect([...groupBy([1, "1", 1], (x) => x)]).toEqual([
      [1, [1, 1]],
      ["1", ["1"]],
    ]);
    expect(groupBy([], (x) => x).size).toBe(0);
  });
});
