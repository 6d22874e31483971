// Serves the built Worker from workerd through Miniflare (as bench/lib/server.mjs does), on
// http://localhost:<port>, for tests that need a real network server (the stdio bridge, a browser).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

// the Miniflare that ships with the pinned wrangler (the top-level one belongs to the test pool)
const { Miniflare } = createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"))("miniflare") as {
  Miniflare: new (options: Record<string, unknown>) => {
    ready: Promise<URL>;
    getD1Database(name: string): Promise<D1Database>;
    dispose(): Promise<void>;
  };
};

const root = path.resolve(import.meta.dirname, "../../..");

export async function startWorker({ port, vars = {} }: { port: number; vars?: Record<string, string> }) {
  const outdir = mkdtempSync(path.join(tmpdir(), "reputation-ops-build-"));
  execFileSync("npx", ["--no-install", "wrangler", "deploy", "--dry-run", "--outdir", outdir], { cwd: root, stdio: "ignore" });
  const toml = readFileSync(path.join(root, "wrangler.toml"), "utf8");
  const compatibilityDate = /compatibility_date\s*=\s*"([^"]+)"/.exec(toml)![1];
  const base = `http://localhost:${port}`;
  const mf = new Miniflare({
    host: "127.0.0.1",
    port,
    name: "reputation-ops",
    modules: true,
    scriptPath: path.join(outdir, "index.js"),
    modulesRoot: outdir,
    modulesRules: [{ type: "ESModule", include: ["**/*.js"] }],
    compatibilityDate,
    compatibilityFlags: ["nodejs_compat"],
    d1Databases: ["DB"],
    kvNamespaces: ["OAUTH_KV"],
    queueProducers: { SENDS: "sends", REVIEW_SYNC: "review-sync", EVENTS: "events", CLICKS: "clicks" },
    durableObjects: { MCP_SESSIONS: "McpSessions", RATE_LIMITER: "RateLimiter" },
    bindings: {
      ENVIRONMENT: "test",
      PUBLIC_BASE_URL: base,
      JWT_ISSUER: "reputation-ops",
      JWT_AUDIENCE: "reputation-ops-api",
      JWT_SECRET: "node-test-jwt-secret-0123456789-0123456789",
      ENCRYPTION_KEY: "bm9kZS10ZXN0LWVuY3J5cHRpb24ta2V5LTMyLWJ5dGU=",
      ...vars,
    },
  });
  await mf.ready;
  const db = await mf.getD1Database("DB");
  const dir = path.join(root, "migrations");
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".sql")).sort()) {
    const statements = readFileSync(path.join(dir, file), "utf8")
      .split("--> statement-breakpoint")
      .map((s) => s.replace(/^\s*--.*$/gm, "").trim())
      .filter(Boolean);
    for (const sql of statements) await db.prepare(sql).run();
  }
  return {
    base,
    async stop() {
      await mf.dispose();
      rmSync(outdir, { recursive: true, force: true });
    },
  };
}
