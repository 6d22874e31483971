// The local D1 databases as wrangler keeps them (<persistTo>/v3/d1, each by its preview_database_id or
// database_id, else its binding: wrangler's executeLocally), opened with the Miniflare that ships with the
// project's wrangler: the same files `wrangler dev` and `wrangler d1 --local` open, without starting wrangler.
import { createRequire } from "node:module";
import path from "node:path";

/** require() as the project's wrangler sees it: its own Miniflare, and wrangler itself. */
export const wranglerRequire = () => createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"));

/** The migration tracking tables of a database (wrangler names them by migrations_table). */
export const TRACKING_TABLES_SQL =
  "select name from sqlite_master where type = 'table' and name like 'd1_migrations%' order by name";

// Runs a list of statements as one D1 batch inside the Worker: one request per batch. Through Miniflare's
// Node proxy (getD1Database) every prepare() is a synchronous round trip to workerd, ~5 ms of CPU each, and
// a migration file is hundreds of statements. The error's cause is what wrangler reports (execute.ts).
const BATCH_WORKER = `export default {
  async fetch(request, env) {
    const { binding, statements } = await request.json();
    const db = env[binding];
    try {
      const results = await db.batch(statements.map((sql) => db.prepare(sql)));
      return Response.json({ results: results.map((r) => ({ success: r.success, results: r.results ?? [] })) });
    } catch (e) {
      return Response.json({ error: (e.cause ?? e).message });
    }
  },
};`;

/**
 * One Miniflare (one workerd) for the given d1_databases entries. `database(binding)` runs SQL on that
 * binding: `batch(statements)` as one D1 batch (one transaction, as wrangler's executeLocally sends them),
 * `all(sql)` one statement's rows. Dispose it before wrangler opens the same files.
 */
export function openLocalD1(persistTo, entries) {
  const { Miniflare } = wranglerRequire()("miniflare");
  const mf = new Miniflare({
    modules: true,
    script: BATCH_WORKER,
    d1Persist: path.join(persistTo, "v3", "d1"),
    d1Databases: Object.fromEntries(
      entries.map((e) => [e.binding, e.preview_database_id ?? e.database_id ?? e.binding]),
    ),
  });
  const batch = async (binding, statements) => {
    const response = await mf.dispatchFetch("http://local-d1/", {
      method: "POST",
      body: JSON.stringify({ binding, statements }),
    });
    const body = await response.json();
    if (body.error !== undefined) throw new Error(body.error);
    return body.results;
  };
  return {
    database: (binding) => ({
      batch: (statements) => batch(binding, statements),
      all: async (sql) => (await batch(binding, [sql]))[0].results,
    }),
    dispose: () => mf.dispose(),
  };
}

/** The names of a database's migration tracking tables. */
export async function trackingTables(db) {
  return (await db.all(TRACKING_TABLES_SQL)).map((r) => r.name);
}
