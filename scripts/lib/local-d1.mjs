// The local D1 databases as wrangler keeps them (<persistTo>/v3/d1, each by its preview_database_id or
// database_id), opened with the Miniflare that ships with the project's wrangler: the same files
// `wrangler dev` and `wrangler d1 --local` open, read without starting wrangler.
import { createRequire } from "node:module";
import path from "node:path";

/** The migration tracking tables of a database (wrangler names them by migrations_table). */
export const TRACKING_TABLES_SQL =
  "select name from sqlite_master where type = 'table' and name like 'd1_migrations%' order by name";

/**
 * Per binding: the migration tracking tables it has and the names each one records. One Miniflare for
 * all of them, disposed before returning (wrangler opens the files next).
 */
export async function readLocalTracking(persistTo, entries) {
  const { Miniflare } = createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"))("miniflare");
  const mf = new Miniflare({
    modules: true,
    script: "export default {}",
    d1Persist: path.join(persistTo, "v3", "d1"),
    d1Databases: Object.fromEntries(
      entries.map((e) => [e.binding, e.preview_database_id ?? e.database_id ?? e.binding]),
    ),
  });
  try {
    const out = new Map();
    for (const e of entries) {
      const d1 = await mf.getD1Database(e.binding);
      const tables = (await d1.prepare(TRACKING_TABLES_SQL).all()).results.map((r) => r.name);
      const applied = {};
      // table names come from sqlite_master and match d1_migrations%: quoted, never user input
      for (const t of tables)
        applied[t] = (await d1.prepare(`select name from "${t}"`).all()).results.map((r) => r.name);
      out.set(e.binding, { tables, applied });
    }
    return out;
  } finally {
    await mf.dispose();
  }
}
