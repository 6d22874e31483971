import { randomBytes } from "node:crypto";

/**
 * The served Worker's BOOTSTRAP_SECRET (bench/lib/server.mjs), new per run the way `npm run
 * setup:cloudflare` makes one: the bench's ENVIRONMENT ("bench") is not a local one, so POST
 * /bootstrap is refused without a secret (docs/SECURITY.md). Whoever bootstraps it sends it as
 * x-bootstrap-secret (bench/lib/bootstrap.mjs does).
 */
export const BENCH_BOOTSTRAP_SECRET = randomBytes(32).toString("base64url");
