// Builds the Worker the way `wrangler deploy` would and serves the bundle straight from workerd
// through Miniflare's API (not `wrangler dev`, whose proxy caps every route at a few hundred req/s).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../../scripts/lib/free-port.mjs";
import { BENCH_SECRETS } from "./secrets.mjs";
import { d1OverHttp, SQL_WORKER } from "./sql-worker.mjs";

/**
 * The Miniflare that ships with the pinned wrangler (same workerd as `wrangler dev`/deploy); the
 * top-level one belongs to the test pool and speaks a newer, different options format. Loaded when a
 * server starts, not on import: a test that only reads this file's constants (the secrets, against the
 * run's shared Worker) does not pay the half second of CPU it costs to load.
 */
const loadMiniflare = () =>
  createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"))("miniflare").Miniflare;

const root = path.resolve(import.meta.dirname, "../..");
/** The served Worker's JWT_SECRET (generated per run: bench/lib/secrets.mjs): benchmarks and tests mint public-link tokens with it. */
export const BENCH_JWT_SECRET = BENCH_SECRETS.JWT_SECRET;
/** The header POST /bootstrap needs on the served Worker (it runs with a BOOTSTRAP_SECRET, as a deployment does). */
export const BOOTSTRAP_SECRET_HEADER = { "x-bootstrap-secret": BENCH_SECRETS.BOOTSTRAP_SECRET };
const defaultOutdir = path.join(root, "bench/.dist");

/**
 * `vars` override or add string bindings (e.g. a lower MCP_SESSION_IDLE_SECONDS for a test);
 * `inspectorPort` opens workerd's V8 inspector (every isolate, for CPU profiles: docs/performance.md).
 * `direct` (BENCH_DIRECT=1) serves the Worker on workerd's own socket (`unsafeDirectSockets`), without
 * Miniflare's entry worker in front: the dev-only layer every request otherwise passes through, on
 * the same workerd thread. The recorded figures use the default (through the entry worker, as
 * decisions.md describes); docs/performance.md gives both for the mixed load.
 */
/**
 * `databaseProcesses` (a shard count) puts the control database (= shard 0) and SHARD_1..n-1 each in
 * a workerd process of its own (bench/lib/d1-server.mjs), `serviceTimeMs` per statement; the result
 * then also carries `databases` ({ db, stats, pid } per shard, index = shard number). Otherwise `db` is the
 * one database (D1's API over HTTP, bench/lib/sql-worker.mjs) and `sqlUrl` its address, which another
 * process can open with d1OverHttp too.
 */
export async function startServer(options = {}) {
  if (options.port !== undefined) return startServerOn(options.port, options);
  // a port nobody else listens on unless one is asked for (BENCH_PORT): a bench beside `npm run dev` or another run
  try {
    return await startServerOn(await freePort(), options);
  } catch (e) {
    // another process bound the free port (a port-0 bind gets the one just freed) before workerd did: once more
    if (e?.code !== "ERR_ADDRESS_IN_USE") throw e;
    return startServerOn(await freePort(), options);
  }
}

async function startServerOn(
  port,
  {
    outdir = defaultOutdir,
    vars = {},
    inspectorPort,
    direct = process.env.BENCH_DIRECT === "1",
    databaseProcesses = 0,
    serviceTimeMs = 0,
  },
) {
  const Miniflare = loadMiniflare();
  // BENCH_PREBUILT=<dir>: serve a bundle built earlier (e.g. the base commit's, for a before/after run)
  if (process.env.BENCH_PREBUILT) outdir = process.env.BENCH_PREBUILT;
  else
    execFileSync("npx", ["--no-install", "wrangler", "deploy", "--dry-run", "--outdir", outdir], {
      cwd: root,
      stdio: "ignore",
    });
  const toml = readFileSync(path.join(root, "wrangler.toml"), "utf8");
  const compatibilityDate = /compatibility_date\s*=\s*"([^"]+)"/.exec(toml)[1];
  // the flags production runs with (wrangler.toml), e.g. global_fetch_strictly_public for CIMD
  const compatibilityFlags = [.../^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(toml)[1].matchAll(/"([^"]+)"/g)].map(
    (m) => m[1],
  );
  const shards = [];
  if (databaseProcesses) {
    const { startD1Server } = await import("./d1-server.mjs");
    const persist = mkdtempSync(path.join(tmpdir(), "bench-shards-"));
    for (let n = 0; n < databaseProcesses; n++)
      shards.push(await startD1Server({ id: `shard-${n}`, persist: path.join(persist, String(n)), serviceTimeMs }));
  }
  const mf = new Miniflare({
    host: "127.0.0.1",
    port: direct ? 0 : port,
    ...(inspectorPort ? { inspectorPort } : {}),
    workers: [
      {
        ...worker(compatibilityDate, compatibilityFlags, port, outdir, vars, d1Bindings(shards)),
        ...(direct ? { unsafeDirectSockets: [{ host: "127.0.0.1", port }] } : {}),
      },
      // the database's SQL door for the caller (bench/lib/sql-worker.mjs): its own socket, not behind `port`
      ...(shards.length ? [] : [SQL_COMPANION]),
    ],
  });
  const dispose = mf.dispose.bind(mf);
  mf.dispose = async () => {
    await dispose();
    for (const s of shards) await s.dispose();
  };
  let entry;
  try {
    entry = (await mf.ready).toString();
  } catch (e) {
    await mf.dispose().catch(() => {});
    throw e;
  }
  const url = (direct ? (await mf.unsafeGetDirectURL("reputation-ops")).toString() : entry).replace(/\/$/, "");
  if (shards.length) {
    for (const [n, s] of shards.entries()) await applyMigrations(s.db, { control: n === 0 });
    return { mf, url, db: shards[0].db, shards: shards.map((s) => s.db), databases: shards };
  }
  const sqlUrl = (await mf.unsafeGetDirectURL(SQL_COMPANION.name)).toString();
  const db = d1OverHttp(sqlUrl);
  try {
    await applyMigrations(db);
  } catch (e) {
    await mf.dispose();
    throw e;
  }
  return { mf, url, db, sqlUrl };
}

/** The companion Worker (bench/lib/sql-worker.mjs) on the served Worker's database DB, on a port of its own. */
const SQL_COMPANION = {
  name: "reputation-ops-sql",
  modules: [{ type: "ESModule", path: "sql.js", contents: SQL_WORKER }],
  compatibilityDate: "2025-01-01",
  d1Databases: { DB: "DB" },
  unsafeDirectSockets: [{ host: "127.0.0.1", port: 0 }],
};

/** The floor: a Worker that answers every request with a static 200 ("ok"), nothing else. */
export const TRIVIAL_WORKER = 'export default { fetch() { return new Response("ok"); } };';

/**
 * Serves TRIVIAL_WORKER the way startServer serves the service: its own Miniflare on `port`, the
 * same compatibility date and flags, through Miniflare's entry worker (or on workerd's own socket
 * with `direct`). Every case reads as a ratio to it as well as to `/health` (docs/performance.md).
 */
export async function startTrivialServer({ port, direct = process.env.BENCH_DIRECT === "1", inspectorPort } = {}) {
  const Miniflare = loadMiniflare();
  port ??= await freePort();
  const toml = readFileSync(path.join(root, "wrangler.toml"), "utf8");
  const compatibilityDate = /compatibility_date\s*=\s*"([^"]+)"/.exec(toml)[1];
  const compatibilityFlags = [.../^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(toml)[1].matchAll(/"([^"]+)"/g)].map(
    (m) => m[1],
  );
  const mf = new Miniflare({
    host: "127.0.0.1",
    port: direct ? 0 : port,
    ...(inspectorPort ? { inspectorPort } : {}),
    workers: [
      {
        name: "trivial",
        modules: [{ type: "ESModule", path: "index.js", contents: TRIVIAL_WORKER }],
        compatibilityDate,
        compatibilityFlags,
        ...(direct ? { unsafeDirectSockets: [{ host: "127.0.0.1", port }] } : {}),
      },
    ],
  });
  const entry = (await mf.ready).toString();
  const url = (direct ? (await mf.unsafeGetDirectURL("trivial")).toString() : entry).replace(/\/$/, "");
  return { mf, url };
}

/** DB and SHARD_0 are one database (the control plane is shard 0); SHARD_n each their own, over loopback. */
function d1Bindings(shards) {
  if (!shards.length) return ["DB"];
  const remote = (n) => ({ id: `shard-${n}`, remoteProxyConnectionString: new URL(shards[n].url) });
  return { DB: remote(0), ...Object.fromEntries(shards.map((_, n) => [`SHARD_${n}`, remote(n)])) };
}

/**
 * The Durable Objects of wrangler.toml, each SQLite-backed when its migration says so (new_sqlite_classes):
 * their code uses the synchronous storage API (ctx.storage.kv), which only SQLite-backed objects have.
 */
function durableObjects() {
  const toml = readFileSync(path.join(root, "wrangler.toml"), "utf8");
  const sqlite = new Set(
    [...toml.matchAll(/new_sqlite_classes\s*=\s*\[([^\]]*)\]/g)].flatMap((m) =>
      [...m[1].matchAll(/"([^"]+)"/g)].map((c) => c[1]),
    ),
  );
  const bindings = { MCP_SESSIONS: "McpSessions", RATE_LIMITER: "RateLimiter", PROVIDER_QUOTA: "ProviderQuota" };
  return Object.fromEntries(
    Object.entries(bindings).map(([binding, className]) => [binding, { className, useSQLite: sqlite.has(className) }]),
  );
}

function worker(compatibilityDate, compatibilityFlags, port, outdir, vars, d1Databases) {
  return {
    name: "reputation-ops",
    // the bundle's modules listed as wrangler uploads them: index.js, and beside it the tokenizer's ranks
    // (wrangler.toml [[rules]]) and the generated view and console code (*.txt, wrangler's default rule) as
    // Text modules. Listed, not found by Miniflare's module walker, which parses the 5.6 MB bundle with
    // acorn on every start (seconds of CPU per served Worker in the node tests).
    modulesRoot: outdir,
    modules: bundleModules(outdir),
    compatibilityDate,
    compatibilityFlags,
    d1Databases,
    kvNamespaces: ["OAUTH_KV"],
    queueProducers: {
      SENDS: "sends",
      REVIEW_SYNC: "review-sync",
      EVENTS: "events",
      WEBHOOKS: "webhooks",
      JOBS: "jobs",
      CLICKS: "clicks",
    },
    queueConsumers: {
      sends: { maxBatchSize: 100, maxBatchTimeout: 1, maxRetries: 5, deadLetterQueue: "dead-letter" },
      "review-sync": { maxBatchSize: 10, maxBatchTimeout: 5, maxRetries: 5, deadLetterQueue: "dead-letter" },
      events: { maxBatchSize: 100, maxBatchTimeout: 1, maxRetries: 8, deadLetterQueue: "dead-letter" },
      webhooks: { maxBatchSize: 20, maxBatchTimeout: 1, maxRetries: 12, deadLetterQueue: "dead-letter" },
      jobs: { maxBatchSize: 5, maxBatchTimeout: 1, maxRetries: 5, deadLetterQueue: "dead-letter" },
      clicks: { maxBatchSize: 100, maxBatchTimeout: 1, maxRetries: 8, deadLetterQueue: "dead-letter" },
      "dead-letter": { maxBatchSize: 100, maxBatchTimeout: 5 },
    },
    durableObjects: durableObjects(),
    bindings: {
      ENVIRONMENT: "bench",
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      JWT_ISSUER: "reputation-ops",
      JWT_AUDIENCE: "reputation-ops-api",
      ...BENCH_SECRETS,
      ...vars,
    },
  };
}

function bundleModules(outdir) {
  const files = readdirSync(outdir).filter((f) => f === "index.js" || /\.(txt|tiktoken)$/.test(f));
  return ["index.js", ...files.filter((f) => f !== "index.js").sort()].map((f) => ({
    type: f === "index.js" ? "ESModule" : "Text",
    path: path.join(outdir, f),
  }));
}

/** One database: the tenant folder, then (the control database, shard 0) the control folder (docs/scaling.md). */
export async function applyMigrations(db, { control = true } = {}) {
  for (const set of control ? ["tenant", "control"] : ["tenant"])
    await applyFolder(db, path.join(root, "migrations", set));
}

async function applyFolder(db, dir) {
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()) {
    const statements = readFileSync(path.join(dir, file), "utf8")
      .split("--> statement-breakpoint")
      .map((s) => s.replace(/^\s*--.*$/gm, "").trim())
      .filter(Boolean);
    // one batch per migration file (atomic, as wrangler applies one): a round trip through Miniflare's
    // proxy per file rather than per statement, which was most of a served Worker's start-up in the tests
    if (statements.length) await db.batch(statements.map((sql) => db.prepare(sql)));
  }
}
