#!/usr/bin/env node
// `npm run budgets [-- --env production] [--runs 5]`: builds the deployed bundle (wrangler deploy
// --dry-run, nothing uploaded) and checks the limits a deploy can hit:
//   - size: the gzipped bundle (Workers refuse scripts over 3 MB compressed on the Free plan)
//   - JavaScript: the bytes workerd compiles at every cold start (start-up follows them; machine-independent)
//   - start-up: CPU that workerd spends compiling the bundle and running its global scope, cold,
//     fastest of N loads minus a trivial Worker's fastest (Workers refuse scripts that start too slowly)
// Exits 1 when a budget is exceeded. Figures and history: docs/performance.md (Start-up and size).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { companionModules, measureStartup } from "./budgets/startup.mjs";

export const BUDGETS = {
  gzipBytes: 3_000_000,
  // 160 until 2026-11-27 (250 before that day, 200 until 2026-11-26). Issue #36: the global scope runs five
  // small modules; the rest is compiling the bundle, cut to 6.7 MB of JavaScript (the tokenizer's ranks as
  // a Text module, node-saml's unused decryption library aliased away): 106-111 ms measured on the shared
  // machine (the goal is 100), so 120 shows a regression (docs/performance.md)
  // 140 since the MCP Apps merge (2026-11-27): the cards' view bundle and the ext-apps server code put the
  // fastest load at 120 ms on this machine, over the 120 it was set to a few hours before (#36 is open)
  // 120 again since #36 part 3 (2026-11-27): ajv, the duplicate xmldom/xpath/xmlbuilder copies out of the bundle
  // and the MCP Apps view script as text (6.0 MB of JavaScript): 88, 98, 97 ms on the shared machine (docs/performance.md)
  // 170 since 2026-11-28: the machine got ~1.45x slower, not the code. The same commit (66903da) that measured
  // 88-98 ms on 2026-11-27 measured 141 ms on 2026-11-28, interleaved with main (139 ms); 120 x 1.45 = 174.
  // The machine-independent guard of the compile cost is jsBytes below (docs/performance.md, 2026-11-28).
  // 200 since the evening of 2026-11-28: three quiet clean-clone runs of byte-identical bundles (5.64 MB) read
  // 155, 157 and 195 ms (the last: every one of its 18 loads 286-374 ms, the trivial Worker's 91-136), so 170
  // sat inside the measurement's noise and failed runs at random. The regression guard is jsBytes below,
  // tightened the same day to the bundle's size plus ~2% (docs/performance.md, "2026-11-28, evening").
  startupCpuMs: 200,
  // start-up is V8's pre-parse of the bundle (#36 part 2: 15 functions run at start-up, the rest follows the
  // bytes): 6.0 MB is the size at which the 120 ms budget held on 2026-11-27 (88-98 ms); 5.40 MB on 2026-11-28;
  // 5.75 MB since the evening of 2026-11-28 (the bundle is 5.64 MB): machine-independent, so it can be tight.
  // 6.25 MB since the night of 2026-11-28: issue #46's console pages are 454 KB of the bundle (6.10 MB with them,
  // start-up 138 ms quiet, under the 200 ms budget); the pages still to come fit the rest (docs/performance.md)
  jsBytes: 6_250_000,
};

const { values: opts } = parseArgs({
  options: {
    env: { type: "string", default: "production" },
    runs: { type: "string", default: "9" },
  },
});

const root = path.resolve(import.meta.dirname, "..");
const outdir = mkdtempSync(path.join(tmpdir(), "budgets-"));
try {
  const build = spawnSync(
    "npx",
    ["--no-install", "wrangler", "deploy", "--dry-run", "--env", opts.env, "--outdir", outdir],
    {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
    },
  );
  if (build.status !== 0) {
    process.stderr.write(build.stdout + build.stderr);
    console.error("budgets: the dry-run build failed");
    process.exit(1);
  }
  const bundle = path.join(outdir, "index.js");
  // the bundle and the modules wrangler wrote beside it (the tokenizer's ranks as text): all are uploaded
  const files = [readFileSync(bundle), ...companionModules(bundle).map((m) => Buffer.from(m.contents))];
  const jsBytes = files[0].length;
  const rawBytes = files.reduce((n, f) => n + f.length, 0);
  const gzipBytes = files.reduce((n, f) => n + gzipSync(f, { level: 9 }).length, 0);
  let startup = await measureStartup(bundle, Number(opts.runs));
  // Noise only ever adds CPU to a load, and on a shared or virtual machine it can last the whole window
  // of 9 loads (one clean-clone run measured every load ~50 ms over the run before it, the trivial
  // Worker's too): over budget, a second window after a pause, and the figure is the fastest of both.
  if (startup.cpuMs !== null && startup.cpuMs > BUDGETS.startupCpuMs) {
    console.log(`start-up ${startup.cpuMs.toFixed(0)} ms CPU over budget in the first window: measuring again`);
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const again = await measureStartup(bundle, Number(opts.runs));
    const worker = [...startup.worker, ...again.worker];
    const trivial = [...startup.trivial, ...again.trivial];
    const fastest = (loads) => Math.min(...loads.map((r) => r.cpu));
    startup = {
      worker,
      trivial,
      wallMs: Math.min(startup.wallMs, again.wallMs),
      cpuMs: again.cpuMs === null ? null : fastest(worker) - fastest(trivial),
    };
  }
  const cpu = startup.cpuMs;

  const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
  console.log(`bundle (${opts.env}): ${mb(rawBytes)}, gzipped ${mb(gzipBytes)} (budget ${mb(BUDGETS.gzipBytes)})`);
  console.log(`JavaScript compiled at start-up: ${mb(jsBytes)} (budget ${mb(BUDGETS.jsBytes)})`);
  console.log(
    `start-up, workerd CPU per cold load: ${startup.worker.map((r) => r.cpu?.toFixed(0)).join(", ")} ms; trivial Worker: ${startup.trivial.map((r) => r.cpu?.toFixed(0)).join(", ")} ms`,
  );
  console.log(
    `start-up cost (CPU: fastest of the loads, difference): ${cpu?.toFixed(0) ?? "n/a"} ms CPU (budget ${BUDGETS.startupCpuMs} ms); wall ${startup.wallMs.toFixed(0)} ms (not budgeted: depends on the machine's load)`,
  );

  const over = [];
  if (gzipBytes > BUDGETS.gzipBytes) over.push(`gzipped bundle ${mb(gzipBytes)} > ${mb(BUDGETS.gzipBytes)}`);
  if (jsBytes > BUDGETS.jsBytes) over.push(`JavaScript ${mb(jsBytes)} > ${mb(BUDGETS.jsBytes)}`);
  if (cpu === null) over.push("start-up CPU could not be read (/proc is needed)");
  else if (cpu > BUDGETS.startupCpuMs) over.push(`start-up ${cpu.toFixed(0)} ms CPU > ${BUDGETS.startupCpuMs} ms`);
  if (over.length) {
    console.error(`budgets exceeded: ${over.join("; ")} (docs/performance.md, Start-up and size)`);
    process.exitCode = 1;
  } else {
    console.log("budgets: ok");
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
