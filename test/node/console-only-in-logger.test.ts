import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// One logger (src/lib/log.ts, docs/ARCHITECTURE.md "Logging"): every line is JSON stamped with its
// request, tenant, shard, queue or sweep. A `console.` anywhere else in src/ would write an unstamped line.
const SRC = path.join(import.meta.dirname, "../../src");
const LOGGER = "lib/log.ts";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mts|js|mjs)$/.test(e.name) ? [full] : [];
  });
}

/**
 * `file:line` of every `console.` call outside the logger (comments included: a quoted example is rare).
 * The console's methods by name: "console" is also the web console's module (docs/console.md, console.css).
 */
function consoleCalls(root = SRC): string[] {
  return sourceFiles(root).flatMap((file) => {
    const rel = path.relative(root, file).split(path.sep).join("/");
    if (rel === LOGGER) return [];
    return readFileSync(file, "utf8")
      .split("\n")
      .flatMap((line, i) =>
        /\bconsole\s*\.\s*(log|info|warn|error|debug|trace|table|dir|time|timeEnd|timeLog|group|groupEnd|assert|count)\b/.test(
          line,
        )
          ? [`${rel}:${i + 1}`]
          : [],
      );
  });
}

describe("console output in src/", () => {
  it("reads the whole tree, the logger included", () => {
    const files = sourceFiles(SRC).map((f) => path.relative(SRC, f).split(path.sep).join("/"));
    expect(files.length).toBeGreaterThan(300);
    expect(files).toContain(LOGGER);
  });

  it("is written by src/lib/log.ts only", () => {
    expect(consoleCalls()).toEqual([]);
  });
});
