// globalSetup of both test projects (vitest.config.mts): the MCP Apps cards' view script and stylesheet are
// build output, not committed (scripts/build-mcp-apps.mjs, docs/mcp.md "MCP Apps"); the workers pool bundles
// src/ itself, without wrangler's [build], and node tests import src/ directly, so they are written here
// first, from the views as they are now (a few hundred ms; unchanged files are left as they are).
import { execFileSync } from "node:child_process";
import path from "node:path";

export default function buildMcpApps(): void {
  execFileSync(process.execPath, ["scripts/build-mcp-apps.mjs"], {
    cwd: path.resolve(import.meta.dirname, "../.."),
    stdio: "ignore",
  });
}
