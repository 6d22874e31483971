// The order files start in (vitest.config.mts `sequence.sequencer`). Four files run at a time and a
// clean clone has no timing cache, so vitest's own order (project by project, the node project first,
// then by file size) started the longest files last: on the 2-core CI machine the node project's
// files held every slot for ~330 s (db-migrate alone 212 s, started at 96 s) before the first workers
// file began, and the suite took 622 s for 1,470 file-seconds. Longest first (the classic LPT rule) over
// both projects packs the four slots: each file's weight is its wall time in a clean-clone CI run
// (test/setup/file-weights.json; files under 5 s are not listed and count as 1 s). Re-measure it from
// a run's JSON report when the suite changes much (docs/testing.md, "CI's shape").
import path from "node:path";
import type { TestSpecification } from "vitest/node";
import { BaseSequencer } from "vitest/node";
import weights from "./file-weights.json";

const root = path.resolve(import.meta.dirname, "../..");
const weightOf = (spec: TestSpecification) =>
  (weights as Record<string, number>)[path.relative(root, spec.moduleId).split(path.sep).join("/")] ?? 1;

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // BaseSequencer's order (failed first when it has a cache) breaks ties; the weight decides
    const base = await super.sort(files);
    const at = new Map(base.map((f, i) => [f, i]));
    return [...base].sort((a, b) => weightOf(b) - weightOf(a) || at.get(a)! - at.get(b)!);
  }
}
