// The published MCP conformance suite (@modelcontextprotocol/conformance) against the built Worker,
// through scripts/mcp-conformance.mjs (`npm run mcp:conformance`): the server scenarios of the
// 2025-11-25 and 2026-07-28 requirement sets, each at its own wire, and the authorization-server
// scenarios. Every scenario that applies passes; every other one fails only because the suite's
// fixture (a tool, prompt or resource of its reference server) is not offered.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

interface Report {
  suite: string;
  cliExit: number;
  scenarios: { scenario: string; revision: string; verdict: string; failures: string[] }[];
}

function runScript(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, "scripts/mcp-conformance.mjs"), ...args], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

it("passes every applicable scenario of the 2025-11-25 and 2026-07-28 requirement sets and the authorization-server scenarios", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "reputation-ops-conformance-test-"));
  try {
    const file = path.join(dir, "report.json");
    const run = await runScript(["--json", file]);
    expect(run.code, run.output).toBe(0);
    const report = JSON.parse(readFileSync(file, "utf8")) as Report;
    expect(report.suite).toBe("@modelcontextprotocol/conformance 0.2.0-alpha.12");
    expect(report.cliExit).toBe(0);
    const by = (revision: string, verdict: string) =>
      report.scenarios.filter((s) => s.revision === revision && s.verdict === verdict).map((s) => s.scenario);
    expect(report.scenarios.filter((s) => s.verdict === "fail")).toEqual([]);
    expect(by("2025-11-25", "pass")).toEqual(
      expect.arrayContaining([
        "dns-rebinding-protection",
        "ping",
        "server-initialize",
        "server-session-lifecycle",
        "server-sse-multiple-streams",
        "tools-list",
      ]),
    );
    expect(by("2026-07-28", "pass")).toEqual(
      expect.arrayContaining([
        "dns-rebinding-protection",
        "http-header-validation",
        "input-required-result-unsupported-methods",
        "input-required-result-validate-input",
        "server-sse-multiple-streams",
        "tools-list",
      ]),
    );
    expect(by("2026-07-28", "pass (fixture checks not applicable)")).toEqual(
      expect.arrayContaining(["server-stateless", "caching"]),
    );
    expect(by("authorization server", "pass").sort()).toEqual([
      "authorization-code-grant",
      "authorization-server-metadata-endpoint",
    ]);
    // not applicable = the suite's fixture tools, prompts or resources, nothing else
    for (const s of report.scenarios.filter((x) => x.verdict === "not applicable"))
      expect(s.failures.length, s.scenario).toBeGreaterThan(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 300_000);
