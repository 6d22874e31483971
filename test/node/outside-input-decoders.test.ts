import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Values made outside the service (keys, webhook secrets, provider signatures, certificates, SAML
 * responses, HTTP Basic credentials, uploaded CSV) come in more spellings than a runtime's one decoder
 * reads: a key from `openssl rand -base64 32` has "+" and "/", a CSV from Excel on Windows is
 * Windows-1252. Each kind is read by one shared decoder that knows those spellings and is tested with
 * every one (docs/SECURITY.md, "Input from outside"):
 * - base64: src/lib/base64.ts (test/lib/base64.test.ts, test/node/base64-portable.test.ts), and the
 *   strict base64url of our own tokens in src/lib/crypto.ts (test/lib/primitives.test.ts);
 * - CSV: src/lib/csv.ts (test/lib/csv.test.ts).
 * This test finds any other place that decodes such input itself.
 */
const root = path.join(import.meta.dirname, "../..");
const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return /\.tsx?$/.test(name) ? [full] : [];
  });
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");

const RULES: [string, RegExp, string[]][] = [
  [
    "a base64 decoder or encoder",
    /\batob\(|\bbtoa\(|\.fromBase64\(|\.toBase64\(|["']base64(url)?["']/,
    ["src/lib/base64.ts", "src/lib/crypto.ts"],
  ],
  ["a CSV parser", /from\s+["']papaparse["']|\bPapa\./, ["src/lib/csv.ts"]],
];

describe("input from outside is decoded by the shared decoders only", () => {
  it("no file but the shared ones decodes base64 or parses CSV", () => {
    const found = sources(path.join(root, "src")).flatMap((file) => {
      const rel = path.relative(root, file);
      return code(readFileSync(file, "utf8"))
        .split("\n")
        .flatMap((line, i) =>
          RULES.filter(([, re, allowed]) => re.test(line) && !allowed.includes(rel)).map(
            ([what]) => `${rel}:${i + 1}: ${what}: ${line.trim()}`,
          ),
        );
    });
    expect(found).toEqual([]);
  });
});
