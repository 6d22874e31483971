// The service's generated secrets, made one way for every place that makes them: `npm run dev`
// (scripts/dev.mjs writes .dev.vars), `npm run setup:cloudflare` (wrangler secret bulk), the test pool
// (vitest.config.mts), the production smoke, the benchmarks and the budgets. Tests therefore run with
// secrets shaped exactly like a user's: ENCRYPTION_KEY in the standard base64 alphabet, with "+" and "/"
// in about three keys of four, as `openssl rand -base64 32` (docs/deploy.md) makes it too.
import { randomBytes } from "node:crypto";

export const SECRET_MAKERS = {
  /** signs session JWTs; derived keys for link tokens, consent tickets, ... (src/lib/crypto.ts, deriveKey) */
  JWT_SECRET: () => randomBytes(48).toString("base64url"),
  /** AES-256-GCM key for credentials at rest: 32 bytes, standard base64 with padding */
  ENCRYPTION_KEY: () => randomBytes(32).toString("base64"),
  /** without it, the first caller of POST /bootstrap becomes platform admin */
  BOOTSTRAP_SECRET: () => randomBytes(32).toString("base64url"),
};

/** A fresh value for each named secret (default: all three). */
export function generateSecrets(names = Object.keys(SECRET_MAKERS)) {
  return Object.fromEntries(names.map((name) => [name, SECRET_MAKERS[name]()]));
}

/**
 * Prints `secrets` to stderr if the process exits with a failure, so a failure that depends on a
 * generated value (a key with "+" or "/", say) can be reproduced with exactly that value.
 */
export function printSecretsOnFailure(label, secrets) {
  process.on("exit", (code) => {
    if (code === 0 && !process.exitCode) return;
    // JSON-quoted when the value has whitespace (openssl's output ends in a newline)
    const lines = Object.entries(secrets).map(([k, v]) => `  ${k}=${/\s/.test(v) ? JSON.stringify(v) : v}`);
    process.stderr.write(`\n${label}: this run's generated secrets (to reproduce a failure):\n${lines.join("\n")}\n`);
  });
}
