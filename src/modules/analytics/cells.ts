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

/**
 * One round trip: counts a touch on each cell (it is dirty until a rebuild records that touch), then
 * returns the dirty cells due for a rebuild, never built or last built at `builtAt` or earlier
 * (with the interval at 0, a cell built in the same millisecond is due too), oldest first: this batch's and any left dirty by an earlier one, so a hot cell is rebuilt at most once per
 * interval and the next batch of any tenant picks it up.
 */
export async function touchAndPickDue(
  db: Db,
  touched: RollupWork[],
  builtAt: string,
  limit = MAX_CELLS_PER_FLUSH,
): Promise<RollupWork[]> {
  const touch = sql`insert into rollup_cells (rollup, tenant_id, location_id, day, version, built_version, built_at)
    select k.*, 1, 0, null from ${KEYS(keysJson(touched))} as k where true
    on conflict (rollup, tenant_id, location_id, day) do update set version = version + 1`;
  const pick = sql`select rollup, tenant_id as tenantId, location_id as locationId, day from rollup_cells
    where version > built_version and (built_at is null or built_at <= ${builtAt}) order by built_at limit ${limit}`;
  const results = await db.$client.batch<{ rollup: Rollup } & RollupCell>(
    [...(touched.length ? [touch] : []), pick].map((s) => prepareRaw(db, s)),
  );
  return results
    .at(-1)!
    .results.map(({ rollup, tenantId, locationId, day }) => ({ rollup, cell: { tenantId, locationId, day } }));
}

/** For the rebuild's atomic batch: the cells are clean up to every touch committed before it. */
export const markBuilt = (work: RollupWork[], at: string) =>
  sql`update rollup_cells set built_version = version, built_at = ${at} where (rollup, tenant_id, location_id, day) in ${KEYS(keysJson(work))}`;

/** Clean cells of days long past: a late touch re-creates its cell (dirty), so nothing is missed. */
export const purgeCleanCells = (db: Db, beforeDay: string) =>
  db.delete(rollupCells).where(and(lt(rollupCells.day, beforeDay), eq(rollupCells.version, rollupCells.builtVersion)));
