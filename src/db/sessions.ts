import { AsyncLocalStorage } from "node:async_hooks";
import { asControl, asShard, type ControlDb, createDb, type ShardDb } from "./client";

/**
 * D1 read replication (Sessions API, docs/scaling.md). A request's reads of one database go through
 * one `withSession` session, so they may be served by a replica yet stay sequentially consistent,
 * and the session's bookmark travels back to the client in a header per database (`x-d1-bookmark`:
 * the tenant's shard, `x-d1-control-bookmark`: the control database); sending them on the next
 * request anchors that request's sessions after the client's own writes (read-your-writes).
 *
 * The sessions live in an AsyncLocalStorage slot (binding -> session; a request may open one on
 * the control database and one on its tenant's shard) behind one stable D1 facade per binding, so
 * the drizzle instance stays one per binding (building one per request walks the whole schema).
 */
const current = new AsyncLocalStorage<ReadonlyMap<D1Database, D1DatabaseSession>>();
const facades = new WeakMap<D1Database, D1Database>();

function facade(d1: D1Database): D1Database {
  let f = facades.get(d1);
  if (!f) {
    const target = () => current.getStore()?.get(d1) ?? d1;
    f = {
      prepare: (query: string) => target().prepare(query),
      batch: (statements: D1PreparedStatement[]) => target().batch(statements),
      exec: (query: string) => d1.exec(query),
      withSession: (c?: string) => d1.withSession(c),
      dump: () => d1.dump(),
    } as D1Database;
    facades.set(d1, f);
  }
  return f;
}

/** The drizzle client over a binding whose queries run in the current request's session, when there is one. */
export const controlSessionDb = (control: D1Database): ControlDb => asControl(createDb(facade(control)));
export const shardSessionDb = (shard: D1Database): ShardDb => asShard(createDb(facade(shard)));

/** The tenant shard's bookmark (/v1). */
export const BOOKMARK_HEADER = "x-d1-bookmark";
/** The control database's bookmark (/auth, /me, /admin, /agency, and the control reads and writes of /v1). */
export const CONTROL_BOOKMARK_HEADER = "x-d1-control-bookmark";

/** A bookmark as D1 mints them (hex groups joined by dashes); anything else is ignored, never passed to D1. */
export const validBookmark = (v: string | undefined | null): string | null =>
  v && /^[0-9a-f]{1,64}(-[0-9a-f]{1,64}){1,7}$/i.test(v) ? v : null;

/**
 * Runs `work` inside a session on `d1` (next to the sessions already open on other databases).
 * Writes start "first-primary": the primary is at least as recent as any bookmark, and a write's
 * checks (the move fence, uniqueness, state) must read the latest rows. Reads start at the client's
 * bookmark when it sent a valid one (read-your-writes), else "first-unconstrained" (any replica).
 * Returns the session's latest bookmark.
 */
export async function inSession(
  d1: D1Database,
  o: { bookmark: string | null; write: boolean },
  work: () => Promise<void>,
): Promise<string | null> {
  const session = d1.withSession(o.write ? "first-primary" : (o.bookmark ?? "first-unconstrained"));
  await current.run(new Map(current.getStore()).set(d1, session), work);
  return session.getBookmark();
}

/** GET/HEAD/OPTIONS read; anything else writes (and starts at the primary). */
export const isWrite = (method: string) => !["GET", "HEAD", "OPTIONS"].includes(method);
