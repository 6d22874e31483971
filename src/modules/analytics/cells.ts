import { and, eq, lt, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rollupCells } from "../../db/schema";
import type { Env } from "../../env";
import { prepareRaw, type RollupCell } from "./rollups";

export type Rollup = "funnel" | "reviews" | "responses";

/** A cell of one rollup: what an event batch touches and a rebuild rewrites. */
export interface RollupWork {
  rollup: Rollup;
  cell: RollupCell;
}

const DEFAULT_REBUILD_SECONDS = 10;
/** Cells rebuilt per event batch at most; the rest wait for the next batch or the sweep. */
export const MAX_CELLS_PER_FLUSH = 200;

/** ROLLUP_REBUILD_SECONDS in ms: how long a rebuilt cell waits before its next rebuild. */
export function rebuildIntervalMs(env: Pick<Env, "ROLLUP_REBUILD_SECONDS">): number {
  const s = Number(env.ROLLUP_REBUILD_SECONDS ?? DEFAULT_REBUILD_SECONDS);
  return (Number.isFinite(s) && s >= 0 ? s : DEFAULT_REBUILD_SECONDS) * 1000;
}

const keysJson = (work: RollupWork[]) =>
  JSON.stringify(work.map(({ rollup, cell }) => [rollup, cell.tenantId, cell.locationId, cell.day]));
const KEYS = (json: string) =>
  sql`(select json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]') from json_each(${json}))`;

/** A cell a batch touched and left dirty: the touch count it must be rebuilt up to, and when it was last built. */
export interface WaitingCell extends RollupWork {
  version: number;
  builtAt: string | null;
}

/** What a batch found: the dirty cells due now, and those it touched that stay dirty (rebuilt too recently). */
export interface PickedCells {
  due: RollupWork[];
  waiting: WaitingCell[];
}

/** A cell's identity as one string (its rollup, tenant, location and day). */
export const workKey = ({ rollup, cell }: RollupWork) => `${rollup}|${cell.tenantId}|${cell.locationId}|${cell.day}`;

/**
 * One round trip: counts a touch on each cell (it is dirty until a rebuild records that touch), then
 * returns the dirty cells due for a rebuild, never built or last built at `builtAt` or earlier
 * (with the interval at 0, a cell built in the same millisecond is due too), oldest first: this batch's and any left dirty by an earlier one, so a hot cell is rebuilt at most once per
 * interval and the next batch of any tenant picks it up. `waiting` are the touched cells not among
 * them (rebuilt too recently, or past `limit`), with the touch count this batch brought them to.
 */
export async function touchAndPickDue(
  db: Db,
  touched: RollupWork[],
  builtAt: string,
  limit = MAX_CELLS_PER_FLUSH,
): Promise<PickedCells> {
  const keys = KEYS(keysJson(touched));
  const touch = sql`insert into rollup_cells (rollup, tenant_id, location_id, day, version, built_version, built_at)
    select k.*, 1, 0, null from ${keys} as k where true
    on conflict (rollup, tenant_id, location_id, day) do update set version = version + 1`;
  const pick = sql`select rollup, tenant_id as tenantId, location_id as locationId, day from rollup_cells
    where version > built_version and (built_at is null or built_at <= ${builtAt}) order by built_at limit ${limit}`;
  const states = sql`select rollup, tenant_id as tenantId, location_id as locationId, day, version, built_at as builtAt
    from rollup_cells where (rollup, tenant_id, location_id, day) in ${keys} and version > built_version`;
  if (!touched.length) {
    const [picked] = await db.$client.batch<{ rollup: Rollup } & RollupCell>([prepareRaw(db, pick)]);
    return { due: picked!.results.map(toWork), waiting: [] };
  }
  const [, picked, dirty] = await db.$client.batch<
    { rollup: Rollup } & RollupCell & { version: number; builtAt: string | null }
  >([touch, pick, states].map((s) => prepareRaw(db, s)));
  const due = picked!.results.map(toWork);
  const dueKeys = new Set(due.map(workKey));
  const waiting = dirty!.results
    .map((r) => ({ ...toWork(r), version: r.version, builtAt: r.builtAt }))
    .filter((w) => !dueKeys.has(workKey(w)));
  return { due, waiting };
}

const toWork = ({ rollup, tenantId, locationId, day }: { rollup: Rollup } & RollupCell): RollupWork => ({
  rollup,
  cell: { tenantId, locationId, day },
});

/**
 * The cells named by key whose touch up to `version` no rebuild has covered yet (built_version below
 * it), with when each was last built: what a delayed rebuild still has to do, in one read.
 */
export async function uncoveredCells(db: Db, named: WaitingCell[]): Promise<WaitingCell[]> {
  if (!named.length) return [];
  const rows = await prepareRaw(
    db,
    sql`select rollup, tenant_id as tenantId, location_id as locationId, day, built_version as builtVersion, built_at as builtAt
      from rollup_cells where (rollup, tenant_id, location_id, day) in ${KEYS(keysJson(named))}`,
  ).all<{ rollup: Rollup } & RollupCell & { builtVersion: number; builtAt: string | null }>();
  const version = new Map(named.map((n) => [workKey(n), n.version]));
  return rows.results.flatMap((r) => {
    const w = toWork(r);
    const wanted = version.get(workKey(w));
    return wanted !== undefined && r.builtVersion < wanted ? [{ ...w, version: wanted, builtAt: r.builtAt }] : [];
  });
}

/** For the rebuild's atomic batch: the cells are clean up to every touch committed before it. */
export const markBuilt = (work: RollupWork[], at: string) =>
  sql`update rollup_cells set built_version = version, built_at = ${at} where (rollup, tenant_id, location_id, day) in ${KEYS(keysJson(work))}`;

/** Clean cells of days long past: a late touch re-creates its cell (dirty), so nothing is missed. */
export const purgeCleanCells = (db: Db, beforeDay: string) =>
  db.delete(rollupCells).where(and(lt(rollupCells.day, beforeDay), eq(rollupCells.version, rollupCells.builtVersion)));
