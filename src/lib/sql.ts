import { getTableColumns, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";

/** D1 binds at most this many parameters per statement. */
export const D1_MAX_PARAMS = 100;

/** `(select value from json_each(?))`: any number of values as one bound parameter, for `in` and joins. */
export const jsonList = (values: string[]) => sql`(select value from json_each(${JSON.stringify(values)}))`;

/** `column IN (values)` with one bound parameter for any number of values. */
export const inJson = (column: SQLiteColumn, values: string[]) => sql`${column} in ${jsonList(values)}`;

/** Rows of `columns` bound values each that fit one statement. */
export const rowsPerStatement = (columns: number) => Math.max(1, Math.floor(D1_MAX_PARAMS / columns));

/**
 * The rows, cut into multi-row inserts into `table` that fit D1's parameter limit. Counts every
 * column of the table (an insert binds at most one value per column), never a hand count.
 */
export function chunkRows<T>(table: SQLiteTable, rows: T[]): T[][] {
  const size = rowsPerStatement(Object.keys(getTableColumns(table)).length);
  const chunks: T[][] = [];
  for (let i = 0; i < rows.length; i += size) chunks.push(rows.slice(i, i + size));
  return chunks;
}

/**
 * The rows, cut so each multi-row insert binds at most `maxParams` values, counting each row's own
 * values (an undefined field binds none: drizzle writes its default). For rows compacted that way,
 * where `chunkRows`' count of every column would be too cautious (contacts/upsert.ts).
 */
export function chunkByParams<T extends object>(rows: T[], maxParams = D1_MAX_PARAMS): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let params = 0;
  for (const row of rows) {
    const cost = Object.values(row).filter((v) => v !== undefined).length;
    if (current.length && params + cost > maxParams) {
      chunks.push(current);
      current = [];
      params = 0;
    }
    current.push(row);
    params += cost;
  }
  if (current.length) chunks.push(current);
  return chunks;
}
