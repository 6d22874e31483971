import { readFileSync } from "node:fs";
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * vitest's order, with each file's duration from the last full run (test/durations.json) in place of its size:
 * longest first within each project, so a small but slow file (a 100-round race test) does not start last and
 * leave the other slots idle at the end of the run (CI is on 2 cores; docs/testing.md). vitest's own cache holds
 * the durations only on a machine that ran the suite before, which CI's clean clone never did. A file not listed
 * yet counts as 5 s. Refresh the list from a run's JSON report: docs/testing.md, "The order of the files".
 */
const durations: Record<string, number> = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "../durations.json"), "utf8"),
);
const UNKNOWN_SECONDS = 5;

export class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const seconds = (f: TestSpecification) => durations[path.relative(root, f.moduleId)] ?? UNKNOWN_SECONDS;
    return [...files].sort((a, b) => {
      const order = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (order !== 0) return order;
      // the projects one after the other, as vitest runs them (a mixed order restarts workerd per switch)
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      return seconds(b) - seconds(a);
    });
  }
}
