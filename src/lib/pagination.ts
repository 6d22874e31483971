import { and, asc, desc, eq, gt, lt, or, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/client";
import { fromBase64Url, toBase64Url } from "./crypto";
import { validationError } from "./errors";

export interface PageQuery {
  cursor?: string;
  limit: number;
}

export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

export interface Page<T> {
  data: T[];
  pageInfo: PageInfo;
  total: number;
}

export type SortValue = string | number;
export type Key = [SortValue, string];

export const encodeCursor = (key: Key): string => toBase64Url(new TextEncoder().encode(JSON.stringify(key)));

export function decodeCursor(cursor: string): Key {
  try {
    const key = JSON.parse(new TextDecoder().decode(fromBase64Url(cursor)));
    if (
      Array.isArray(key) &&
      key.length === 2 &&
      ["string", "number"].includes(typeof key[0]) &&
      typeof key[1] === "string"
    ) {
      return key as Key;
    }
  } catch {
    /* fall through */
  }
  throw validationError([{ path: "cursor", message: "Invalid cursor" }]);
}

export interface KeysetOptions<Row, Out> {
  query: PageQuery;
  /** sort column then a unique tie-breaker (the id) */
  sort: [SQLiteColumn, SQLiteColumn];
  direction?: "asc" | "desc";
  /** builds the page query from the cursor condition, the order and the limit; not awaited */
  rows: (cursorCondition: SQL | undefined, orderBy: SQL[], limit: number) => BatchItem<"sqlite"> & PromiseLike<Row[]>;
  /** count(*) under the same filters, without the cursor; not awaited */
  count: BatchItem<"sqlite"> & PromiseLike<{ n: number }[]>;
  key: (row: Row) => Key;
  map: (row: Row) => Out;
}

/** The seek condition (rows after the cursor) and the order for a keyset page; shared with cross-shard pages. */
export function seek(
  sort: [SQLiteColumn, SQLiteColumn],
  dir: "asc" | "desc",
  cursor?: string,
): { cond: SQL | undefined; order: SQL[] } {
  const [sortCol, idCol] = sort;
  const before = dir === "desc" ? lt : gt;
  let cond: SQL | undefined;
  if (cursor) {
    const [v, id] = decodeCursor(cursor);
    cond = or(before(sortCol, v), and(eq(sortCol, v), before(idCol, id)));
  }
  return { cond, order: dir === "desc" ? [desc(sortCol), desc(idCol)] : [asc(sortCol), asc(idCol)] };
}

/** The page from up to limit+1 rows in page order (the extra row only says there is a next page). */
export function pageOf<Row, Out>(
  rows: Row[],
  o: { query: PageQuery; key: (row: Row) => Key; map: (row: Row) => Out; total: number },
): Page<Out> {
  const hasNextPage = rows.length > o.query.limit;
  const pageRows = hasNextPage ? rows.slice(0, o.query.limit) : rows;
  const first = pageRows[0];
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map(o.map),
    pageInfo: {
      hasNextPage,
      hasPreviousPage: Boolean(o.query.cursor),
      startCursor: first ? encodeCursor(o.key(first)) : null,
      endCursor: last ? encodeCursor(o.key(last)) : null,
    },
    total: o.total,
  };
}

/**
 * Keyset (seek) pagination on an index: (sort, id) < cursor, newest first by default.
 * The page and the total are read in one D1 batch (one round trip).
 */
export async function keysetPage<Row, Out>(db: Db, o: KeysetOptions<Row, Out>): Promise<Page<Out>> {
  const { cond, order } = seek(o.sort, o.direction ?? "desc", o.query.cursor);
  const [rows, counted] = (await db.batch([o.rows(cond, order, o.query.limit + 1), o.count] as const)) as unknown as [
    Row[],
    { n: number }[],
  ];
  return pageOf(rows, { query: o.query, key: o.key, map: o.map, total: counted[0]?.n ?? 0 });
}
