// globalSetup of both test projects (vitest.config.mts): the browser code (the MCP Apps cards' view script and
// stylesheet, the console's client parts and stylesheet) is build output, not committed
// (scripts/build-browser-code.mjs, docs/mcp.md "MCP Apps", docs/console.md); the workers pool bundles src/ itself,
// without wrangler's [build], and node tests import src/ directly, so they are written here first, from the
// sources as they are now (a few hundred ms; unchanged files are left as they are).
import { execFileSync } from "node:child_process";
import path from "node:path";

export default function buildBrowserCode(): void {
  execFileSync(process.execPath, ["scripts/build-browser-code.mjs"], {
    cwd: path.resolve(import.meta.dirname, "../.."),
    stdio: "ignore",
  });
}
