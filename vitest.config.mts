import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { generateSecrets, printSecretsOnFailure, SECRET_MAKERS } from "./scripts/lib/secrets.mjs";

// Two projects: "workers" runs inside workerd with the real bindings (almost everything);
// "node" holds the few checks whose tools need a real file system (e.g. the OpenAPI validator).
export default defineConfig(async () => {
  // two folders (docs/scaling.md): the tenant one on every database, the control one on DB only
  const [tenantMigrations, controlMigrations] = await Promise.all(
    ["tenant", "control"].map((set) => readD1Migrations(path.join(import.meta.dirname, "migrations", set))),
  );
  // The run's secrets, made as `npm run dev` and setup:cloudflare make them (scripts/lib/secrets.mjs), never
  // fixed convenient values: the workers pool gets them as bindings, the Workers the node tests serve
  // (bench/lib/server.mjs) through BENCH_SECRETS. Printed if the run fails, to reproduce it.
  const secrets = generateSecrets();
  const benchSecrets = generateSecrets();
  process.env.BENCH_SECRETS = JSON.stringify(benchSecrets);
  const keySamples = encryptionKeySamples();
  const rotatedJwt = SECRET_MAKERS.JWT_SECRET();
  printSecretsOnFailure("vitest", {
    ...secrets,
    "rotated JWT_SECRET": rotatedJwt,
    ...Object.fromEntries(Object.entries(benchSecrets).map(([k, v]) => [`served Worker ${k}`, v])),
    ...Object.fromEntries(keySamples.map((s, i) => [`key sample ${i} (${s.source})`, s.key])),
  });
  return {
    test: {
      // vitest's default is cores - 1: ONE file at a time on the 2-core CI machine. Most of a file's wall
      // time is waiting (queue batches, polling, wrangler and Chromium in the node tests), so run more files
      // than cores. VITEST_MAX_WORKERS overrides (docs/testing.md).
      // Four on 2 cores: 359 s for the whole of .ci/run against 566 s with three (docs/testing.md, "Status").
      maxWorkers: process.env.VITEST_MAX_WORKERS ? undefined : Math.max(4, availableParallelism()),
      projects: [
        {
          plugins: [
            cloudflareTest({
              main: "./src/index.ts",
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                bindings: {
                  TEST_MIGRATIONS_TENANT: tenantMigrations,
                  TEST_MIGRATIONS_CONTROL: controlMigrations,
                  ...secrets,
                  // more keys made as users make them, sealed and opened by test/lib/encryption-key.test.ts
                  TEST_KEY_SAMPLES: keySamples,
                  // the JWT_SECRET a rotation test rotates to (test/lib/key-rotation.test.ts)
                  TEST_ROTATED_JWT_SECRET: rotatedJwt,
                  ENVIRONMENT: "test",
                  // rollups rebuilt on every event batch, so tests read them at once (test/analytics/coalescing.test.ts covers the interval)
                  ROLLUP_REBUILD_SECONDS: "0",
                  // tenant moves wait 1 s (not the 10 s directory TTL) after fencing and after the flip; the delay path still runs
                  TENANT_MOVE_SETTLE_SECONDS: "1",
                },
              },
            }),
          ],
          test: {
            name: "workers",
            include: ["test/**/*.test.ts"],
            exclude: ["test/node/**"],
            // the browser code (build output: MCP Apps views, console client) before the pool bundles src/
            globalSetup: ["./test/setup/build-browser-code.ts"],
            setupFiles: ["./test/setup/apply-migrations.ts"],
            // files run one after another in the same workerd process and module graph: the Worker is
            // imported once per process, not once per file; the setup file empties storage before each
            // file (docs/testing.md). It needs the pool's wrapper classes patched (patches/, applied by
            // `npm install`): unpatched, every Durable Object or entrypoint instance nested one more Proxy
            // around a shared prototype, and every file ran slower than the one before it.
            isolate: false,
            // CI has 2 cores: a heavy file (a 5,000-row import, a campaign send) can pass 5 s when others run beside it,
            // and four files run at once. A timeout only guards against a hang: generous costs nothing when tests pass.
            testTimeout: 60_000,
            hookTimeout: 60_000,
          },
        },
        {
          // *.txt are Text modules in the Worker (wrangler's default rule; the MCP Apps view script): Node gets their text too
          plugins: [textModules()],
          // the same hang guard as the workers project: vitest's default 5 s fails a synchronous test that loads
          // wrangler's config reader while three files run at once on 2 cores
          test: {
            name: "node",
            environment: "node",
            // the MCP Apps view script and stylesheet for the files that import src/ (build-browser-code.ts, also when
            // BENCH_PREBUILT skips the build), then the Worker built once for the files that serve it (build-worker.ts),
            // one Chromium the page tests connect to (chromium.ts) and one served Worker they share (served-worker.ts)
            globalSetup: [
              "./test/setup/build-browser-code.ts",
              "./test/setup/build-worker.ts",
              "./test/setup/chromium.ts",
              "./test/setup/served-worker.ts",
            ],
            // a fresh connection per request to the served Workers (workerd closes a kept-alive one 5 s after reading a request)
            setupFiles: ["./test/setup/fetch-connection-close.ts"],
            include: ["test/node/**/*.test.ts"],
            // the node files share their forks as the workers files share workerd: each file in a fork of its own
            // imported playwright, the served-Worker helpers and src/ again (~2.7 s of CPU a file, 39 files);
            // every file's state is its own tenant on the shared Worker or a Worker of its own (docs/testing.md)
            isolate: false,
            testTimeout: 60_000,
            hookTimeout: 60_000,
          },
        },
      ],
    },
  };
});

/**
 * ENCRYPTION_KEY values as users make them: by the generator `npm run dev` and setup:cloudflare use
 * (Node's standard base64) and by `openssl rand -base64 32`, the command docs/deploy.md gives for a
 * rotation (its output ends in a newline, which `wrangler secret put` from a pipe keeps or trims).
 */
function encryptionKeySamples() {
  const samples = Array.from({ length: 12 }, () => ({
    source: "scripts/lib/secrets.mjs",
    key: SECRET_MAKERS.ENCRYPTION_KEY(),
  }));
  for (let i = 0; i < 4; i++)
    samples.push({
      source: "openssl rand -base64 32",
      key: execFileSync("openssl", ["rand", "-base64", "32"], { encoding: "utf8" }),
    });
  return samples;
}

/** Imports of *.txt files as their text (`export default "..."`), as wrangler's Text modules give them to the Worker. */
function textModules() {
  return {
    name: "text-modules",
    enforce: "pre" as const,
    load(id: string) {
      if (!id.endsWith(".txt")) return null;
      return `export default ${JSON.stringify(readFileSync(id, "utf8"))};`;
    },
  };
}
