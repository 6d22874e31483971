import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./helpers/source-code";

/**
 * Only src/db/ names the D1 bindings (env.DB, SHARD_n) or mints a database handle (createDb, asShard,
 * asControl): everything else gets a ControlDb or a ShardDb from src/db/shards.ts, so no route or job
 * can read a binding that means another database than it thinks (docs/SECURITY.md, "Databases by
 * construction"). src/env.ts declares the bindings and is the one other file allowed to name them.
 */
const src = path.join(import.meta.dirname, "../../src");
const ALLOWED = new Set(["db", "env.ts"].map((p) => path.join(src, p)));

const sources = (dir: string) => sourceFiles(dir, ALLOWED);

/** The code without its comments (which may well mention env.DB). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");

const FORBIDDEN: [string, RegExp][] = [
  ["env.DB", /\.DB\b|\[\s*["'`]DB["'`]\s*\]/],
  ["a SHARD_n binding", /\bSHARD_(\d|\$\{)/],
  ["CONTROL_DB", /\bCONTROL_DB\b/],
  ["createDb (unbranded handle)", /\bcreateDb\b/],
  ["asShard/asControl (branding)", /\bas(Shard|Control)\b/],
];

describe("database bindings are named in src/db/ only", () => {
  it("no file outside src/db/ (and src/env.ts) names a D1 binding or mints a handle", () => {
    const files = sources(src);
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((f) => {
      const lines = code(readFileSync(f, "utf8")).split("\n");
      return lines.flatMap((line, i) =>
        FORBIDDEN.filter(([, re]) => re.test(line)).map(
          ([what]) => `${path.relative(src, f)}:${i + 1} ${what}: ${line.trim()}`,
        ),
      );
    });
    expect(offenders).toEqual([]);
  });

  it("catches the patterns it forbids (the check itself works)", () => {
    const hits = (line: string) => FORBIDDEN.filter(([, re]) => re.test(code(line))).map(([what]) => what);
    expect(hits("const db = createDb(env.DB);")).toEqual(["env.DB", "createDb (unbranded handle)"]);
    expect(hits("const d1 = c.env.SHARD_1;")).toEqual(["a SHARD_n binding"]);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text under scan, not a template
    expect(hits("const d1 = (env as any)[`SHARD_${n}`];")).toEqual(["a SHARD_n binding"]);
    expect(hits('const d1 = env["DB"];')).toEqual(["env.DB"]);
    expect(hits("// env.DB is never rewritten")).toEqual([]);
    expect(hits("const cap = SHARD_CAP_BYTES;")).toEqual([]);
  });
});
