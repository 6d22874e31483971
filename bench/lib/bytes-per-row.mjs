// What one row of each table costs on disk: the table's rows (copied from a database the load filled
// through the API) are replayed table by table, parents first, into an empty migrated database of
// its own, and the database's size (D1's `meta.size_after`) is read after each table: the growth,
// indexes included, over the rows. Tables under MIN_ROWS are left out (page granularity: 4 KB).
import { startD1Server } from "./d1-server.mjs";
import { literal } from "./seed.mjs";
import { applyMigrations } from "./server.mjs";

const MIN_ROWS = 200;

export async function bytesPerRow(source) {
  const target = await startD1Server({ id: "bytes" });
  try {
    await applyMigrations(target.db);
    await target.db.prepare("create table bench_size_probe (k text primary key, v integer)").run();
    const tables = (
      await source
        .prepare(
          "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '_cf_%' and name not like 'd1_%'",
        )
        .all()
    ).results.map((r) => r.name);
    const out = [];
    let size = await sizeOf(target.db);
    for (const table of await parentsFirst(source, tables)) {
      const rows = (await source.prepare(`select * from "${table}"`).all()).results;
      if (!rows.length) continue;
      const columns = Object.keys(rows[0]);
      const head = `insert or replace into "${table}" (${columns.map((c) => `"${c}"`).join(",")}) values `;
      const statements = [];
      let values = [];
      let length = 0;
      const flush = () => {
        if (values.length) statements.push(target.db.prepare(head + values.join(",")));
        values = [];
        length = 0;
      };
      // D1 refuses a statement over 100 KB
      for (const r of rows) {
        const tuple = `(${columns.map((c) => literal(r[c])).join(",")})`;
        if (length + tuple.length > 60_000) flush();
        values.push(tuple);
        length += tuple.length;
      }
      flush();
      for (let i = 0; i < statements.length; i += 20) await target.db.batch(statements.slice(i, i + 20));
      const grown = (await sizeOf(target.db)) - size;
      size += grown;
      if (rows.length >= MIN_ROWS)
        out.push({ table, rows: rows.length, bytes: grown, "bytes/row": Math.round(grown / rows.length) });
    }
    return out.sort((a, b) => b.rows - a.rows);
  } finally {
    await target.dispose();
  }
}

async function sizeOf(db) {
  return (await db.prepare("insert or replace into bench_size_probe (k, v) values ('probe', 1)").run()).meta.size_after;
}

/** Tables in an order where every foreign key's parent comes first. */
async function parentsFirst(db, tables) {
  const parents = new Map();
  for (const t of tables)
    parents.set(
      t,
      new Set(
        (await db.prepare(`pragma foreign_key_list("${t}")`).all()).results.map((r) => r.table).filter((p) => p !== t),
      ),
    );
  const done = [];
  const visit = (t, seen = new Set()) => {
    if (done.includes(t) || seen.has(t)) return;
    seen.add(t);
    for (const p of parents.get(t) ?? []) visit(p, seen);
    done.push(t);
  };
  for (const t of tables) visit(t);
  return done;
}
