// The secrets of every Worker the benchmarks and the node tests serve (bench/lib/server.mjs), made as
// `npm run dev` and setup:cloudflare make them (scripts/lib/secrets.mjs), once per run: the test pool's
// config generates them and hands them down in BENCH_SECRETS so a failing run prints the values it used
// (vitest.config.mts); a bench run generates its own and prints them if it fails.
import { generateSecrets, printSecretsOnFailure } from "../../scripts/lib/secrets.mjs";

const inherited = process.env.BENCH_SECRETS ? JSON.parse(process.env.BENCH_SECRETS) : null;

/** JWT_SECRET, ENCRYPTION_KEY and BOOTSTRAP_SECRET of the served Worker. */
export const BENCH_SECRETS = inherited ?? generateSecrets();
if (!inherited) printSecretsOnFailure("bench", BENCH_SECRETS);
