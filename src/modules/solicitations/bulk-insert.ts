import { getTableColumns, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/client";

/** Under D1's 100 KB statement size even if bound values counted toward it. */
const MAX_JSON_BYTES = 90_000;
const encoder = new TextEncoder();

/**
 * Multi-row inserts that bind ONE value per statement: the rows travel as a JSON array and SQLite
 * unpacks them with json_each. A 5,000-row send is then a few dozen statements instead of the
 * ~700 that 100 bound parameters per statement would need (D1 allows 1,000 queries per invocation).
 * Object values (JSON columns) are stored as their JSON text; absent keys become NULL.
 */
export function jsonInsertStatements<T extends SQLiteTable>(
  db: Db,
  table: T,
  rows: T["$inferInsert"][],
): BatchItem<"sqlite">[] {
  if (!rows.length) return [];
  const columns = Object.entries(getTableColumns(table));
  const values = sql.raw(columns.map(([key]) => `json_extract(value, '$.${key}')`).join(", "));
  const out: BatchItem<"sqlite">[] = [];
  let chunk: string[] = [];
  let bytes = 2;
  const flush = () => {
    if (!chunk.length) return;
    // drizzle inserts a select into every column, in table order: the order `values` was built in
    out.push(db.insert(table).select(sql`select ${values} from json_each(${`[${chunk.join(",")}]`})`));
    chunk = [];
    bytes = 2;
  };
  for (const row of rows) {
    const json = JSON.stringify(row);
    const size = encoder.encode(json).length + 1;
    if (chunk.length && bytes + size > MAX_JSON_BYTES) flush();
    chunk.push(json);
    bytes += size;
  }
  flush();
  return out;
}
