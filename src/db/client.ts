import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

const build = (d1: D1Database) => drizzle(d1, { schema });
/** Either database, for helpers that run on whichever they are handed (commit, paging, audit statements). */
export type Db = ReturnType<typeof build>;

/**
 * The two kinds of handle (docs/scaling.md, docs/SECURITY.md "Databases by construction"): the
 * control plane and a tenant shard. Each carries a brand no other value has, so a function that
 * asks for one refuses the other at compile time; only src/db/ mints them (controlDb, shardDb,
 * tenantDb, allShards). A plain `Db` parameter takes either. On a single-database deployment both
 * reach the same binding; the brand is the role, not the file.
 */
declare const controlBrand: unique symbol;
declare const shardBrand: unique symbol;
export type ControlDb = Db & { readonly [controlBrand]: "control" };
export type ShardDb = Db & { readonly [shardBrand]: "shard" };

/**
 * One drizzle instance per D1 binding object: building one walks the whole schema (every table's
 * relational config), which is measurable per request on the hot paths. The binding is the same
 * object for every request of an isolate; the instance holds no per-request state.
 */
const instances = new WeakMap<D1Database, Db>();

/** Unbranded: for src/db/ itself; everything else gets a ControlDb or ShardDb from src/db/shards.ts. */
export function createDb(d1: D1Database): Db {
  let db = instances.get(d1);
  if (!db) {
    db = build(d1);
    instances.set(d1, db);
  }
  return db;
}

/** The brands exist only in the type system: the same drizzle instance, named for its role. */
export const asControl = (db: Db) => db as ControlDb;
export const asShard = (db: Db) => db as ShardDb;

export { schema };
