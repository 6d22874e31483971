#!/usr/bin/env node
// Builds the MCP Apps cards' view script (src/modules/mcp/apps/views/main.ts) and stylesheet, which the
// Worker serves inside each card's HTML (cards.ts): the cards carry their code, no CDN, no third-party
// script at runtime. Both go to Text modules beside cards.ts (wrangler's default rule for *.txt: workerd
// does not compile text at start-up, docs/performance.md): view-script.generated.txt and
// view-style.generated.txt. They are build output, not committed (.gitignore); this script runs
//   - on `npm install` / `npm ci` (package.json postinstall), so tsx scripts and the test pool find them;
//   - before every wrangler build (wrangler.toml [build]: `npm run dev`, deploy, the tests' and the
//     budgets' `wrangler deploy --dry-run`), and again in `wrangler dev` when a view changes;
//   - before the workers test project (test/setup/build-mcp-apps.ts).
// A file is rewritten only when its text changed (wrangler dev watches the sources, not these files).
// It fails when the script holds an eval (a host's strict CSP refuses it: docs/mcp.md, MCP Apps) or a
// card would pass its size budget.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const apps = path.join(root, "src/modules/mcp/apps");
const views = path.join(apps, "views");
export const GENERATED_SCRIPT = path.join(apps, "view-script.generated.txt");
export const GENERATED_STYLE = path.join(apps, "view-style.generated.txt");
/** Each card's whole HTML, uncompressed, at most (issue #48); the shell around script and style is < 1 KB. */
export const CARD_BUDGET_BYTES = 150 * 1024;
/**
 * Code built from text at run time is what a Content-Security-Policy without 'unsafe-eval' refuses: the
 * script names neither eval nor the Function constructor at all (zod's probe was `let e=Function;new e("")`).
 */
export const EVAL_PATTERN = /\beval\b|\bFunction\b/;

/** The generated files' text by path: the view script and the stylesheet. */
export async function generate() {
  const out = await build({
    entryPoints: [path.join(views, "main.ts")],
    bundle: true,
    minify: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    legalComments: "none",
    // nothing of the console belongs in a user's chat, and the Worker's source tree has one logger
    // (test/node/console-only-in-logger.test.ts)
    drop: ["console"],
    write: false,
    logLevel: "silent",
  });
  // inside <script>, "</script" or "<!--" in a string would end or confuse the element
  const script = out.outputFiles[0].text
    .trim()
    .replace(/<\/(script)/gi, "<\\/$1")
    .replace(/<!--/g, "<\\!--");
  const style = readFileSync(path.join(views, "card.css"), "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/\s+/g, " ")
    .trim();
  const found = EVAL_PATTERN.exec(script);
  if (found) throw new Error(`the view script builds code from text (${found[0]}): a strict CSP refuses it`);
  const bytes = Buffer.byteLength(script) + Buffer.byteLength(style);
  if (bytes > CARD_BUDGET_BYTES - 1024)
    throw new Error(`the view script and style are ${bytes} bytes, over the cards' ${CARD_BUDGET_BYTES}-byte budget`);
  return { [GENERATED_SCRIPT]: script, [GENERATED_STYLE]: style };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = await generate();
  for (const [file, text] of Object.entries(files)) {
    if (existsSync(file) && readFileSync(file, "utf8") === text) continue;
    writeFileSync(file, text);
    console.log(`wrote ${path.relative(root, file)} (${(Buffer.byteLength(text) / 1024).toFixed(1)} KiB)`);
  }
}
