#!/usr/bin/env node
// Builds the service's browser code: each target's script (esbuild, one bundle) and stylesheet (one CSS file,
// minified), written as Text modules beside the code that serves them (wrangler's default rule for *.txt:
// workerd does not compile text at start-up, docs/performance.md). Two targets:
//   - the MCP Apps cards (src/modules/mcp/apps: views/main.ts + views/card.css), inlined in each card (cards.tsx);
//   - the web console (src/modules/console: client/main.tsx, its small hono/jsx/dom parts, + console.css),
//     served from the service's own origin under /app/assets (docs/console.md).
// The outputs are build output, not committed (.gitignore); this script runs
//   - on `npm install` / `npm ci` (package.json postinstall), so tsx scripts and the test pool find them;
//   - before every wrangler build (wrangler.toml [build]: `npm run dev`, deploy, the tests' and the
//     budgets' `wrangler deploy --dry-run`), and again in `wrangler dev` when a source changes;
//   - before both test projects (test/setup/build-browser-code.ts).
// A file is rewritten only when its text changed (wrangler dev watches the sources, not these files).
// It fails when a script holds an eval (a strict CSP refuses it: docs/mcp.md, MCP Apps) or a target
// would pass its size budget.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const apps = path.join(root, "src/modules/mcp/apps");
const consoleDir = path.join(root, "src/modules/console");

/**
 * Code built from text at run time is what a Content-Security-Policy without 'unsafe-eval' refuses: the
 * script names neither eval nor the Function constructor at all (zod's probe was `let e=Function;new e("")`).
 */
export const EVAL_PATTERN = /\beval\b|\bFunction\b/;

export const TARGETS = [
  {
    name: "MCP Apps cards",
    entry: path.join(apps, "views/main.ts"),
    css: path.join(apps, "views/card.css"),
    script: path.join(apps, "view-script.generated.txt"),
    style: path.join(apps, "view-style.generated.txt"),
    /** Each card's whole HTML, uncompressed, at most (issue #48); the shell around script and style is < 1 KB. */
    budget: { bytes: 150 * 1024 - 1024 },
  },
  {
    name: "console",
    entry: path.join(consoleDir, "client/main.tsx"),
    css: path.join(consoleDir, "styles/console.css"),
    script: path.join(consoleDir, "console-script.generated.txt"),
    style: path.join(consoleDir, "console-style.generated.txt"),
    /** Issue #45: a page's HTML, CSS and script under 60 KB gzipped; script and stylesheet get 30 of them. */
    budget: { gzipBytes: 30 * 1024 },
  },
];

async function buildTarget(t) {
  const out = await build({
    entryPoints: [t.entry],
    bundle: true,
    minify: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    legalComments: "none",
    // the client parts are hono/jsx/dom (no React): the automatic runtime from hono
    jsx: "automatic",
    jsxImportSource: "hono/jsx/dom",
    // nothing of the console (the browser's) belongs in a user's screen, and the Worker's source tree has one
    // logger (test/node/console-only-in-logger.test.ts)
    drop: ["console"],
    write: false,
    logLevel: "silent",
  });
  // inside <script>, "</script" or "<!--" in a string would end or confuse the element
  const script = out.outputFiles[0].text
    .trim()
    .replace(/<\/(script)/gi, "<\\/$1")
    .replace(/<!--/g, "<\\!--");
  const style = readFileSync(t.css, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/\s+/g, " ")
    .trim();
  const found = EVAL_PATTERN.exec(script);
  if (found) throw new Error(`${t.name}: the script builds code from text (${found[0]}): a strict CSP refuses it`);
  const bytes = Buffer.byteLength(script) + Buffer.byteLength(style);
  if (t.budget.bytes && bytes > t.budget.bytes)
    throw new Error(`${t.name}: script and style are ${bytes} bytes, over the ${t.budget.bytes}-byte budget`);
  const gz = gzipSync(script).length + gzipSync(style).length;
  if (t.budget.gzipBytes && gz > t.budget.gzipBytes)
    throw new Error(`${t.name}: script and style are ${gz} bytes gzipped, over the ${t.budget.gzipBytes}-byte budget`);
  return { [t.script]: script, [t.style]: style };
}

/** The generated files' text by path, every target. */
export async function generate() {
  const parts = await Promise.all(TARGETS.map(buildTarget));
  return Object.assign({}, ...parts);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = await generate();
  for (const [file, text] of Object.entries(files)) {
    if (existsSync(file) && readFileSync(file, "utf8") === text) continue;
    writeFileSync(file, text);
    console.log(`wrote ${path.relative(root, file)} (${(Buffer.byteLength(text) / 1024).toFixed(1)} KiB)`);
  }
}
