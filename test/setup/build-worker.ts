// globalSetup of the node project (vitest.config.mts): the Worker is built once per run, the way
// `wrangler deploy` builds it, and every node test file that serves it (bench/lib/server.mjs
// `startServer`, through test/node/helpers) gets that one bundle through BENCH_PREBUILT instead of
// running its own `wrangler deploy --dry-run` (~10 s of CPU each, a dozen files: docs/testing.md).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export default function buildWorkerOnce(): (() => void) | undefined {
  // a bundle given from outside (a before/after comparison) is served as it is
  if (process.env.BENCH_PREBUILT) return undefined;
  const outdir = mkdtempSync(path.join(tmpdir(), "reputation-ops-test-build-"));
  execFileSync("npx", ["--no-install", "wrangler", "deploy", "--dry-run", "--outdir", outdir], {
    cwd: path.resolve(import.meta.dirname, "../.."),
    stdio: "ignore",
  });
  // set before vitest starts the node project's workers, which inherit the environment
  process.env.BENCH_PREBUILT = outdir;
  return () => {
    delete process.env.BENCH_PREBUILT;
    rmSync(outdir, { recursive: true, force: true });
  };
}
