#!/usr/bin/env node
// `npm run dev`: writes .dev.vars with random secrets if missing, applies D1 migrations to the
// local control database and every local shard, then serves everything with `wrangler dev` on
// http://localhost:8787 (or --port N, or PORT=N). The public base address (links in mail, the OAuth
// issuer) follows the served port unless .dev.vars or a --var sets PUBLIC_BASE_URL (decisions.md, "Running it").
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { servedAddress } from "./lib/dev-address.mjs";
import { writeDevVars } from "./lib/dev-vars.mjs";

const args = process.argv.slice(2);

if (writeDevVars()) console.log("wrote .dev.vars with fresh JWT_SECRET and ENCRYPTION_KEY");

// the control database and every tenant shard (docs/scaling.md)
const applied = spawnSync("node", ["scripts/db-migrate.mjs", "--local"], {
  stdio: "inherit",
  env: { ...process.env, CI: "true" },
});
if (applied.status !== 0) process.exit(applied.status ?? 1);

const { extra } = servedAddress(args, process.env, readFileSync(".dev.vars", "utf8"));
const child = spawn("npx", ["--no-install", "wrangler", "dev", ...extra, ...args], { stdio: "inherit" });
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code) => process.exit(code ?? 0));
