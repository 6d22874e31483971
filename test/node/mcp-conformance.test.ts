// The published MCP conformance suite (@modelcontextprotocol/conformance, server scenarios) against
// the built Worker, through scripts/mcp-conformance.mjs (`npm run mcp:conformance`): every scenario
// that applies passes, and every other one fails only because its fixture is not offered.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

interface Report {
  suite: string;
  cliExit: number;
  scenarios: { scenario: string; verdict: "pass" | "fail" | "not applicable"; failures: string[] }[];
}

function runScript(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, "scripts/mcp-conformance.mjs"), ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

it("passes every applicable server scenario of the active suite", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "reputation-ops-conformance-test-"));
  try {
    const file = path.join(dir, "report.json");
    const run = await runScript(["--json", file]);
    expect(run.code, run.output).toBe(0);
    const report = JSON.parse(readFileSync(file, "utf8")) as Report;
    expect(report.suite).toBe("@modelcontextprotocol/conformance 0.1.16");
    expect(report.cliExit).toBe(0);
    const by = (verdict: string) => report.scenarios.filter((s) => s.verdict === verdict).map((s) => s.scenario);
    expect(by("fail")).toEqual([]);
    expect(by("pass")).toEqual(["dns-rebinding-protection", "ping", "server-initialize", "server-sse-multiple-streams", "tools-list"]);
    expect(by("not applicable")).toHaveLength(25);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 240_000);
