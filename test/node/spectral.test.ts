import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { createApp, openApiConfig } from "../../src/app";

// OWASP/OAS lint of the document the app serves, with the ruleset and justified overrides in
// .spectral.yaml. Zero errors; the warning counts are printed (and listed in docs/api-lint.md).
const root = path.resolve(import.meta.dirname, "../..");

interface Finding {
  code: string;
  severity: number;
  path: string[];
  message: string;
}

describe("spectral lint (spectral:oas + OWASP API Security Top 10 2023 ruleset)", () => {
  it("reports zero errors", async () => {
    const doc = createApp().getOpenAPI31Document(openApiConfig("https://reputation-ops.example.com", "production"));
    const file = path.join(mkdtempSync(path.join(tmpdir(), "spectral-")), "openapi.json");
    writeFileSync(file, JSON.stringify(doc));
    const bin = path.join(root, "node_modules/.bin/spectral");
    // exit code 1 means findings at the fail severity; the JSON on stdout is what is judged
    const { stdout } = await promisify(execFile)(
      bin,
      ["lint", file, "--ruleset", path.join(root, ".spectral.yaml"), "-f", "json", "-q", "--fail-severity", "error"],
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
    ).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? "", stderr: e.stderr }));
    const findings = JSON.parse(stdout || "[]") as Finding[];
    const counts: Record<string, number> = {};
    for (const f of findings) {
      const key = `${["error", "warn", "info", "hint"][f.severity]} ${f.code}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    console.log(
      `spectral: ${findings.filter((f) => f.severity === 0).length} errors, ${findings.filter((f) => f.severity === 1).length} warnings\n${Object.entries(
        counts,
      )
        .sort()
        .map(([k, n]) => `  ${k}: ${n}`)
        .join("\n")}`,
    );
    const errors = findings
      .filter((f) => f.severity === 0)
      .map((f) => `${f.code} at ${f.path.join(".")}: ${f.message}`);
    expect(findings.length, "spectral produced no output: did it run?").toBeGreaterThan(0);
    expect(errors).toEqual([]);
  }, 120_000);
});
