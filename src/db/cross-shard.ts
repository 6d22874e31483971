import type { SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Env } from "../env";
import { groupMap } from "../lib/collections";
import { type Key, type Page, type PageQuery, pageOf, type SortValue, seek } from "../lib/pagination";
import { inJson } from "../lib/sql";
import type { ShardDb } from "./client";
import { tenants } from "./schema";
import { allShards, controlDb, shardDb, tenantShard } from "./shards";

/**
 * Lists that span tenants on several shards (docs/scaling.md "Cross-shard reads"): the same keyset
 * page query runs on every shard that holds one of the wanted tenants, in parallel, each asking
 * limit+1 rows after the cursor; the answers are merged by the list's sort key and cut to `limit`.
 * Cost: one D1 round trip per shard touched (page and count in one batch), plus the directory read
 * that chose the shards.
 */

/** A shard to read, and which of its tenants: `tenantIds` null reads every row there (platform-wide lists). */
export interface ShardTarget {
  shard: number;
  db: ShardDb;
  tenantIds: string[] | null;
}

/** Every shard, unfiltered: platform-wide lists (no directory read). */
export const everyShard = (env: Env): ShardTarget[] => allShards(env).map((s) => ({ ...s, tenantIds: null }));

/** Tenants grouped by the shard the directory puts them on, shards in order. */
export function groupByShard(env: Env, refs: { id: string; shard: number }[]): ShardTarget[] {
  return [
    ...groupMap(
      refs,
      (t) => t.shard,
      (t) => t.id,
    ),
  ]
    .sort(([a], [b]) => a - b)
    .map(([shard, tenantIds]) => ({ shard, db: shardDb(env, shard), tenantIds }));
}

/**
 * The tenants matching `where` in the directory, grouped by shard (one control-plane read); a shard
 * holding none of them is not read. Each tenant is read on its directory shard only, so a tenant
 * whose rows sit on two shards mid-move is listed once.
 */
export async function shardsHolding(env: Env, where: SQL | undefined): Promise<ShardTarget[]> {
  return groupByShard(
    env,
    await controlDb(env).select({ id: tenants.id, shard: tenants.shard }).from(tenants).where(where),
  );
}

/**
 * One tenant's rows: its directory shard only. Nothing writes a tenant's rows on another database
 * (control-plane flows write its audit and outbox rows on its shard too: docs/scaling.md), so shard 0
 * is not read for a tenant of another shard. An unknown tenant reads shard 0, where it finds nothing.
 */
export async function tenantTarget(env: Env, tenantId: string): Promise<ShardTarget[]> {
  const shard = (await tenantShard(env, tenantId)) ?? 0;
  return [{ shard, db: shardDb(env, shard), tenantIds: [tenantId] }];
}

/** The condition limiting a list's tenant_id column to the target's tenants (one bound parameter however many). */
export const ofTarget = (tenantIdColumn: SQLiteColumn, t: ShardTarget): SQL | undefined =>
  t.tenantIds ? inJson(tenantIdColumn, t.tenantIds) : undefined;

type Direction = "asc" | "desc";

/** SQLite's order (BINARY collation): numbers before text, text by UTF-8 bytes, i.e. by code point. */
function compareValues(a: SortValue, b: SortValue): number {
  if (typeof a !== typeof b) return typeof a === "number" ? -1 : 1;
  if (typeof a === "number") return a - (b as number);
  if (a === b) return 0;
  // JS compares UTF-16 code units, which differs from code point order only beyond U+FFFF
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b as string, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** Negative when `a` comes first in the page order. */
export function compareKeys(a: Key, b: Key, direction: Direction): number {
  const c = compareValues(a[0], b[0]) || compareValues(a[1], b[1]);
  return direction === "desc" ? -c : c;
}

/**
 * k-way merge of lists already in page order, up to `limit` rows. A key met twice is one row copied
 * to two shards (a tenant mid-move in a platform-wide list): kept once.
 */
export function mergeSorted<Row>(lists: Row[][], key: (row: Row) => Key, direction: Direction, limit: number): Row[] {
  const heads = lists.map(() => 0);
  const out: Row[] = [];
  let lastKey: Key | undefined;
  while (out.length < limit) {
    let best = -1;
    let bestKey: Key | undefined;
    lists.forEach((list, i) => {
      const row = list[heads[i]!];
      if (row === undefined) return;
      const k = key(row);
      if (!bestKey || compareKeys(k, bestKey, direction) < 0) [best, bestKey] = [i, k];
    });
    if (best < 0 || !bestKey) break;
    const row = lists[best]![heads[best]!++]!;
    if (lastKey && compareKeys(bestKey, lastKey, direction) === 0) continue;
    out.push(row);
    lastKey = bestKey;
  }
  return out;
}

/** The list on one shard: the page query (from the cursor condition, order and limit) and its count. */
export interface ShardList<Row> {
  rows: (cursorCondition: SQL | undefined, orderBy: SQL[], limit: number) => BatchItem<"sqlite"> & PromiseLike<Row[]>;
  count: BatchItem<"sqlite"> & PromiseLike<{ n: number }[]>;
}

export interface CrossShardOptions<Row, Out> {
  query: PageQuery;
  /** sort column then a unique tie-breaker (the id), as for keysetPage */
  sort: [SQLiteColumn, SQLiteColumn];
  direction?: Direction;
  /** the list on one target shard, limited to its tenants (`ofTarget`) and the list's filters */
  onShard: (target: ShardTarget) => ShardList<Row>;
  key: (row: Row) => Key;
  map: (row: Row) => Out;
}

/**
 * A keyset page across shards, with the same cursor format and response shape as keysetPage: every
 * target shard answers limit+1 rows after the cursor (and its count) in one batch, in parallel; the
 * merge takes limit+1, so the extra row says whether a next page exists anywhere. `total` sums the
 * shards' counts.
 */
export async function crossShardPage<Row, Out>(
  targets: ShardTarget[],
  o: CrossShardOptions<Row, Out>,
): Promise<Page<Out>> {
  const direction = o.direction ?? "desc";
  const { cond, order } = seek(o.sort, direction, o.query.cursor);
  const answers = await Promise.all(
    targets.map(async (t) => {
      const list = o.onShard(t);
      const [rows, counted] = (await t.db.batch([
        list.rows(cond, order, o.query.limit + 1),
        list.count,
      ] as const)) as unknown as [Row[], { n: number }[]];
      return { rows, n: counted[0]?.n ?? 0 };
    }),
  );
  const merged = mergeSorted(
    answers.map((a) => a.rows),
    o.key,
    direction,
    o.query.limit + 1,
  );
  return pageOf(merged, { query: o.query, key: o.key, map: o.map, total: answers.reduce((n, a) => n + a.n, 0) });
}
