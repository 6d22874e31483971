import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

const build = (d1: D1Database) => drizzle(d1, { schema });
export type Db = ReturnType<typeof build>;

/**
 * One drizzle instance per D1 binding object: building one walks the whole schema (every table's
 * relational config), which is measurable per request on the hot paths. The binding is the same
 * object for every request of an isolate; the instance holds no per-request state.
 */
const instances = new WeakMap<D1Database, Db>();

export function createDb(d1: D1Database): Db {
  let db = instances.get(d1);
  if (!db) {
    db = build(d1);
    instances.set(d1, db);
  }
  return db;
}

export { schema };
