import { sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";

/** `column IN (values)` with one bound parameter for any number of values (D1 allows 100 per statement). */
export const inJson = (column: SQLiteColumn, values: string[]) => sql`${column} in (select value from json_each(${JSON.stringify(values)}))`;
