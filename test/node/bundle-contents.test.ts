// What the deployed bundle must not carry (issue #36): every isolate's start-up is V8's pre-parse of
// the whole bundle, ~11-15 ms of CPU per MB of JavaScript on the CI machine, whether the code ever
// runs or not (docs/performance.md, "Start-up and size"). Each check below is a cut that was measured;
// it fails when a dependency change brings the bytes back.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a .mjs script without types
import { companionModules } from "../../scripts/budgets/startup.mjs";
// @ts-expect-error: a .mjs script without types
import { readRawConfig } from "../../scripts/cloudflare/env-config.mjs";

const root = path.resolve(import.meta.dirname, "../..");
let outdir = "";
let bundle = "";

/** The node_modules paths the bundle holds code from (esbuild's `// node_modules/<path>` markers). */
const packagePaths = () => [...bundle.matchAll(/^\/\/ (node_modules\/\S+)$/gm)].map((m) => m[1]!);

/** The distinct copies of a package: `node_modules/<pkg>/` and every nested `.../node_modules/<pkg>/`. */
function copiesOf(pkg: string): string[] {
  const copies = new Set<string>();
  for (const p of packagePaths()) {
    const at = p.lastIndexOf(`node_modules/${pkg}/`);
    if (at !== -1 && p.slice(at).split("/").length > pkg.split("/").length + 1)
      copies.add(`${p.slice(0, at)}node_modules/${pkg}`);
  }
  return [...copies];
}

/**
 * The modules whose code runs when an isolate starts, before any request: the sections esbuild emits as
 * plain top-level code (modules nothing imports lazily) and the module wrappers (`var init_x = __esm({
 * "path"() { ... } })`, `require_x = __commonJS(...)`) called from the top level, with every wrapper
 * those call in turn as a static import (at the wrapper body's first level; a dynamic import() is a call
 * inside a function, run later).
 */
function startupModules(): string[] {
  // a wrapper's body: from its head to the next wrapper's head; its static imports are the `init_x();` lines at
  // the body's first level (4 spaces), where esbuild puts them (top-level functions' bodies start at 2)
  const heads = [...bundle.matchAll(/^var ([\w$]+) = __(?:esm|commonJS)\(\{\n {2}"([^"]+)"\(/gm)];
  const wrappers = new Map(
    heads.map((m, i) => [m[1]!, { path: m[2]!, body: bundle.slice(m.index, heads[i + 1]?.index ?? bundle.length) }]),
  );
  const wrapped = new Set(heads.map((m) => m[2]!));
  const plain = [...bundle.matchAll(/^\/\/ ((?:src|node_modules)\/\S+)$/gm)]
    .map((m) => m[1]!)
    .filter((p) => !wrapped.has(p));
  const calls = (code: string, indent: string) =>
    [
      ...code.matchAll(
        new RegExp(`^${indent}(?:var [\\w$]+ = )?(?:__toESM\\()?((?:init|require)_[\\w$]+)\\(\\)`, "gm"),
      ),
    ].map((m) => m[1]!);
  const seen = new Set<string>();
  const queue = calls(bundle, "");
  while (queue.length) {
    const w = wrappers.get(queue.pop()!);
    if (!w || seen.has(w.path)) continue;
    seen.add(w.path);
    queue.push(...calls(w.body, " {4}"));
  }
  return [...new Set([...plain, ...seen])].sort();
}

/**
 * What [env.production] may set without changing the code wrangler bundles (bindings, vars, routes, flags the
 * runtime reads): with only these, `--env production` builds the same bytes as the default environment
 * (compared once, 2026-11-28), so the run's one build (test/setup/build-worker.ts, BENCH_PREBUILT) serves here.
 * A key outside the list (define, alias, minify, rules, main, build, ...) makes this file build its own.
 */
const BINDING_KEYS = new Set([
  "name",
  "compatibility_flags",
  "workers_dev",
  "route",
  "routes",
  "vars",
  "observability",
  "d1_databases",
  "kv_namespaces",
  "queues",
  "durable_objects",
  "migrations",
  "triggers",
  "ai",
]);
let ownBuild = false;

beforeAll(() => {
  const production = readRawConfig(path.join(root, "wrangler.toml")).env.production as Record<string, unknown>;
  const prebuilt = process.env.BENCH_PREBUILT;
  if (prebuilt && Object.keys(production).every((k) => BINDING_KEYS.has(k))) {
    outdir = prebuilt;
  } else {
    ownBuild = true;
    outdir = mkdtempSync(path.join(tmpdir(), "bundle-contents-"));
    execFileSync(
      "npx",
      ["--no-install", "wrangler", "deploy", "--dry-run", "--env", "production", "--outdir", outdir],
      {
        cwd: root,
        env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
        stdio: "pipe",
      },
    );
  }
  bundle = readFileSync(path.join(outdir, "index.js"), "utf8");
});
afterAll(() => {
  if (ownBuild) rmSync(outdir, { recursive: true, force: true });
});

describe("the production bundle", () => {
  it("holds no ajv: both MCP legs validate JSON Schema with @cfworker/json-schema", () => {
    expect(copiesOf("ajv")).toEqual([]);
    expect(copiesOf("ajv-formats")).toEqual([]);
    expect(copiesOf("fast-uri")).toEqual([]);
  });

  it("holds one copy each of xmldom 0.8 and xpath for the SAML libraries (npm nested one per dependant)", () => {
    // our own parser is xmldom 0.9 under the name xmldom-0.9 (package.json), which frees the top-level
    // @xmldom/xmldom for the one 0.8 copy node-saml and xml-crypto share; xpath 0.0.34 for both (overrides)
    expect(copiesOf("@xmldom/xmldom")).toEqual(["node_modules/@xmldom/xmldom"]);
    expect(copiesOf("xmldom-0.9")).toEqual(["node_modules/xmldom-0.9"]);
    expect(copiesOf("xpath")).toEqual(["node_modules/xpath"]);
  });

  it("holds one xmlbuilder: xml2js (node-saml's status reader) shares node-saml's 15.x (overrides)", () => {
    // test/sso/attacks.test.ts ("the IdP's error status") runs the one path that builds XML with xml2js
    expect(copiesOf("xmlbuilder")).toEqual(["node_modules/xmlbuilder"]);
  });

  it("holds zod's English messages and none of its other 63 locales (patches/zod+4.6.7.patch)", () => {
    // zod re-exports every locale as `z.locales` (and `z.core.locales`), which the service never reads;
    // the patch drops those re-exports, -394 kB. Errors stay English: schemas.js configures `en` itself.
    const locales = packagePaths().filter((p) => p.startsWith("node_modules/zod/v4/locales/"));
    expect(locales).toEqual(["node_modules/zod/v4/locales/en.js"]);
  });

  it("runs only the Worker's own small start-up modules in the global scope: no library, no schema", () => {
    // start-up CPU is budgeted (docs/performance.md, Start-up); the wiring, the app, zod and every schema load on
    // the first invocation (src/worker.ts). A module-scope import that pulls one of them back shows here by name,
    // on any machine, where the CPU budget only sees it as a few ms in a noisy figure.
    expect(startupModules()).toEqual([
      "src/background/cron.ts",
      "src/background/queue.ts",
      "src/db/intercept.ts",
      "src/db/max-shards.ts",
      "src/db/yielding.ts",
      "src/durable/mcp-sessions.ts",
      "src/durable/provider-quota.ts",
      "src/durable/rate-limiter.ts",
      "src/hooks.ts",
      "src/index.ts",
      "src/lib/base64.ts",
      "src/lib/catalogue.ts",
      "src/lib/crypto.ts",
      "src/lib/errors.ts",
      "src/lib/has-rest.ts",
      "src/lib/log.ts",
      "src/worker.ts",
    ]);
  });

  it("carries the MCP Apps view script as a Text module beside it, not as a string in the JavaScript", () => {
    const text = readdirSync(outdir).filter((f) => f.endsWith("view-script.generated.txt"));
    expect(text).toHaveLength(1);
    expect(bundle).toContain(`from "./${text[0]}"`);
    // the budget's start-up probe (and the size budget) load it with the bundle
    expect(companionModules(path.join(outdir, "index.js")).map((m: { path: string }) => m.path)).toContain(text[0]);
    // a line of the view script (the card's bridge giving up on a silent host) is in the text, not in the bundle
    const marker = "The host did not answer in time";
    expect(readFileSync(path.join(outdir, text[0]!), "utf8")).toContain(marker);
    expect(bundle).not.toContain(marker);
  });
});
