// `wrangler d1 migrations apply <db> --local`, in this process, on a database opened once
// (scripts/lib/local-d1.mjs). wrangler 4.86 starts a new Miniflare (a workerd) for the tracking table, one
// for the applied list and one per migration file: a fresh clone's first `npm run dev` paid ~30 of them.
// The semantics are wrangler's, read from its source (node_modules/wrangler/wrangler-dist/cli.js; upstream
// workers-sdk packages/wrangler/src/d1/), and docs/scaling.md says which:
// - migrations/helpers.ts `initMigrationsTable`: the tracking table, created with the same statement text;
// - helpers.ts `getUnappliedMigrations`, `getMigrationNames`: the folder's *.sql files that the table does not
//   name, sorted by name, then (migrations/apply.ts) by the number before the first "_";
// - apply.ts: each file's text followed by `INSERT INTO <table> (name) values ('<file>');`, split into
//   statements by wrangler's own splitter (splitter.ts `splitSqlQuery`, which wrangler exports as
//   `unstable_splitSqlQuery`: comments, quotes, the BEGIN ... END of a trigger, a BEGIN TRANSACTION/COMMIT
//   pair dropped), run as ONE batch (execute.ts `executeLocally`: `db.batch`), which Miniflare's D1 runs in
//   one transaction: a file and its tracking row commit together or not at all; the first file that fails
//   stops the folder with SQLite's message, and the files before it stay applied.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { wranglerRequire } from "./local-d1.mjs";

/** wrangler's CREATE TABLE for a migrations_table, character for character (helpers.ts initMigrationsTable). */
export const trackingTableSql = (table) =>
  `CREATE TABLE IF NOT EXISTS ${table}(\n\t\tid         INTEGER PRIMARY KEY AUTOINCREMENT,\n\t\tname       TEXT UNIQUE,\n\t\tapplied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL\n);`;

/** What apply.ts appends to a migration file's text: its tracking row, in the same batch. */
export const trackingRowSql = (table, file) =>
  `\n\t\t\t\t\t\t\t\tINSERT INTO ${table} (name)\n\t\t\t\t\t\t\t\tvalues ('${file}');\n\t\t\t\t\t\t`;

/** A folder's migration files in the order wrangler applies them (getMigrationNames, then apply.ts's sort). */
export function migrationFiles(dir) {
  const number = (name) => parseInt(name.split("_")[0], 10);
  return readdirSync(dir)
    .filter((name) => name.endsWith(".sql"))
    .sort()
    .sort((a, b) => (number(a) < number(b) ? -1 : number(a) > number(b) ? 1 : 0));
}

// wrangler's splitter is in its 12 MB bundle (~1 s of CPU to load): loaded once, and only when a file is pending
let splitter;
const splitSqlQuery = (sql) => {
  splitter ??= wranglerRequire()("wrangler").unstable_splitSqlQuery;
  return splitter(sql);
};

/** SQL text run as wrangler's `d1 execute --local --command` runs it: split by its splitter, one batch (one transaction). */
export async function executeLocal(db, sql) {
  const results = await db.batch(splitSqlQuery(sql));
  if (!results.every((r) => r.success)) throw new Error("a statement did not succeed");
  return results;
}

/** A migration file that failed: rolled back whole, the ones before it applied. */
export class MigrationFailed extends Error {
  constructor(file, cause) {
    super(`${file} failed and was rolled back: ${cause}`);
    this.file = file;
  }
}

/**
 * Applies a folder's pending migrations to a local database with wrangler's semantics (above). `label` names
 * the folder in messages (migrations/tenant); `onApplied(file)` follows each file that committed. Returns the
 * files applied; throws MigrationFailed at the first file that fails.
 */
export async function applyLocalFolder(db, { dir, table, label = dir, onApplied = () => {} }) {
  await db.batch([trackingTableSql(table)]);
  const applied = new Set((await db.all(`SELECT *\n\t\tFROM ${table}\n\t\tORDER BY id`)).map((r) => r.name));
  const pending = migrationFiles(dir).filter((file) => !applied.has(file));
  for (const file of pending) {
    const sql = readFileSync(path.join(dir, file), "utf8") + trackingRowSql(table, file);
    try {
      await executeLocal(db, sql);
    } catch (e) {
      // wrangler reports the cause's message (apply.ts: `err.cause ?? err`)
      throw new MigrationFailed(`${label}/${file}`, (e.cause ?? e).message);
    }
    onApplied(file);
  }
  return pending;
}
