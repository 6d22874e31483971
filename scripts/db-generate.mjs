#!/usr/bin/env node
// `npm run db:generate -- --name <what>`: drizzle-kit generate for both migration folders
// (drizzle.tenant.config.ts -> migrations/tenant/, drizzle.control.config.ts -> migrations/control/);
// a folder whose tables did not change gets no file. A hand-written (--custom) migration names its
// folder itself: `npx drizzle-kit generate --config drizzle.tenant.config.ts --custom --name <what>`.
import { spawnSync } from "node:child_process";

const args = process.argv.slice(2);
if (args.includes("--custom")) {
  console.error(
    "db:generate: --custom needs one folder: npx drizzle-kit generate --config drizzle.<tenant|control>.config.ts --custom --name <what>",
  );
  process.exit(1);
}
for (const set of ["tenant", "control"]) {
  console.log(`== migrations/${set}/`);
  const r = spawnSync(
    "npx",
    ["--no-install", "drizzle-kit", "generate", "--config", `drizzle.${set}.config.ts`, ...args],
    { stdio: "inherit" },
  );
  if (r.status !== 0) process.exit(r.status ?? 1);
}
