// Runs the `wrangler` on PATH for the operator scripts (a `wrangler` earlier on PATH wins: tests put a
// stand-in there; otherwise the project's own). What changes the account is shown; listings and
// --json answers are parsed, not printed.
import { spawnSync } from "node:child_process";
import path from "node:path";

export const projectRoot = path.resolve(import.meta.dirname, "../..");

export function wranglerRunner(label) {
  process.env.PATH = `${process.env.PATH}${path.delimiter}${path.join(projectRoot, "node_modules", ".bin")}`;
  const fail = (message) => {
    console.error(`${label}: ${message}`);
    process.exit(1);
  };
  /** stdout of `wrangler <args>`; a non-zero exit fails the script unless `allowFailure`. */
  const wrangler = (args, { allowFailure = false } = {}) => {
    console.log(`$ wrangler ${args.join(" ")}`);
    const r = spawnSync("wrangler", args, {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
    });
    if (r.error) fail(`could not run wrangler: ${r.error.message}`);
    if (r.status !== 0 && !allowFailure) {
      process.stderr.write(r.stdout + r.stderr);
      fail(`wrangler ${args.slice(0, 3).join(" ")} failed (exit ${r.status})`);
    }
    if (!args.includes("list") && !args.includes("--json")) process.stdout.write(r.stdout);
    return { ok: r.status === 0, out: r.stdout, err: r.stderr };
  };
  return { wrangler, fail };
}
