import { describe, expect, it } from "vitest";
// @ts-expect-error plain .mjs script without types
import { cycles, importGraph, mutualPairs, sideEffectImports } from "../../scripts/import-graph.mjs";

// The same check as `node scripts/import-graph.mjs` (run by .ci/run): no import cycle between files
// of src/, and no two feature modules (src/modules/<x>) importing each other. A call that must go the
// other way is a hook the composition root passes in (src/hooks.ts, src/wiring.ts).
describe("import graph of src/", () => {
  const graph = importGraph();

  it("reads the whole tree", () => {
    expect(graph.size).toBeGreaterThan(300);
  });

  it("has no import cycle", () => {
    expect(cycles(graph)).toEqual([]);
  });

  it("has no pair of feature modules importing each other", () => {
    expect(mutualPairs(graph)).toEqual([]);
  });

  it("has no import for side effects: nothing registers itself on import (catalogues are lists in src/wiring.ts)", () => {
    expect(sideEffectImports()).toEqual([]);
  });
});
