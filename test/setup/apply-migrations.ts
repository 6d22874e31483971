import { type D1Migration, reset } from "cloudflare:test";
import { env } from "cloudflare:workers";

if (!env.TEST_MIGRATIONS_TENANT || !env.TEST_MIGRATIONS_CONTROL)
  throw new Error("TEST_MIGRATIONS_* bindings missing: see vitest.config.mts");

// Test files run one after another in the same workerd process and module graph (`isolate: false` in
// vitest.config.mts, docs/testing.md): importing the Worker once per process instead of once per file
// is most of the suite's speed. Storage is what must not carry over: every file starts from empty
// databases, KV, Durable Objects and queues (reset() deletes them all), then migrates.
await reset();

// as scripts/db-migrate.mjs does (docs/scaling.md): the tenant folder on the control database and every
// shard (SHARD_0 is the control database: its tracking table makes the second pass a no-op), the
// control folder on the control database only, each folder with its own tracking table
const tenantFolder = { migrations: env.TEST_MIGRATIONS_TENANT, table: "d1_migrations_tenant" };
await migrate(env.DB, [tenantFolder, { migrations: env.TEST_MIGRATIONS_CONTROL, table: "d1_migrations_control" }]);
for (let n = 0; n < 16; n++) {
  const shard = (env as unknown as Record<string, D1Database | undefined>)[`SHARD_${n}`];
  if (!shard) break;
  await migrate(shard, [tenantFolder]);
}

// The Worker installs the composition root's hooks and skills on its first invocation; tests also
// call services directly, before any request, so they get the same wiring up front.
// Installed again before every file, with the providers' test seams put back to none: a file that
// swapped one and failed before restoring it must not hand it to the next file of the process.
const [
  { installHooks },
  { installSkills },
  { HOOKS, SKILLS },
  { useDnsOverHttps },
  { useCustomHostnameProvider },
  { resetBackgroundGate },
] = await Promise.all([
  import("../../src/hooks"),
  import("../../src/modules/mcp/skills/registry"),
  import("../../src/wiring"),
  import("../../src/providers/dns"),
  import("../../src/providers/hostnames"),
  import("../../src/db/yielding"),
]);
installHooks(HOOKS);
// the yielding gate back to idle (src/db/yielding.ts): a request an earlier file left hanging would make
// every background round trip of this file wait, and break test/background/background-d1.test.ts
resetBackgroundGate();
installSkills(SKILLS);
useDnsOverHttps(null);
useCustomHostnameProvider(null);

/**
 * What the pool's applyD1Migrations does (the same tracking tables and rows, each folder's migrations in
 * order, an applied one skipped), in three round trips per database instead of one batch per migration
 * file: before every test file, on every database, those round trips were ~0.3 s of CPU a file (~65 s a run).
 * The pending statements go as ONE multi-statement query, which local D1 runs in one SQLite call and one
 * transaction (as wrangler applies each file in one): a batch of ~570 prepared statements paid D1's
 * per-statement bookkeeping on each, 250 ms of the file's set-up against 175 ms (measured 2026-11-28).
 */
async function migrate(db: D1Database, folders: { migrations: D1Migration[]; table: string }[]) {
  const tracking = (table: string) => `"${table.replace(/"/g, '""')}"`;
  await db.batch(
    folders.map((f) =>
      db.prepare(
        `CREATE TABLE IF NOT EXISTS ${tracking(f.table)} (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)`,
      ),
    ),
  );
  const applied = await db.batch<{ name: string }>(
    folders.map((f) => db.prepare(`SELECT name FROM ${tracking(f.table)}`)),
  );
  const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
  const script = folders
    .flatMap((f, i) => {
      const done = new Set(applied[i]!.results.map((r) => r.name));
      return f.migrations
        .filter((m) => !done.has(m.name))
        .flatMap((m) => [...m.queries, `INSERT INTO ${tracking(f.table)} (name) VALUES (${literal(m.name)})`]);
    })
    .join(";\n");
  if (script) await db.prepare(script).run();
}
