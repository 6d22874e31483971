import type { Env } from "../../env";
import type { Rollup, WaitingCell } from "./cells";

/**
 * The EVENTS queue's second kind of message (beside event envelopes): a delayed rebuild of the cells
 * one event batch left dirty because they were rebuilt under ROLLUP_REBUILD_SECONDS ago. Each cell
 * carries the touch count the batch brought it to: a rebuild that covers it (built_version reached
 * it) makes the message's work done, whoever did it (docs/analytics.md, "Maintenance").
 * `tenantId` (a tenant of the batch) routes it to the batch's shard; `round` counts reschedules.
 */
export interface RollupRebuildMessage {
  kind: "rollup_rebuild";
  tenantId: string;
  round: number;
  /** [rollup, tenantId, locationId, day, version] */
  cells: [Rollup, string, string, string, number][];
}

const ROLLUPS: readonly string[] = ["funnel", "reviews", "responses"] satisfies Rollup[];
const isText = (v: unknown) => typeof v === "string" && v.length > 0;
const isCell = (c: unknown) =>
  Array.isArray(c) &&
  c.length === 5 &&
  ROLLUPS.includes(c[0]) &&
  isText(c[1]) &&
  isText(c[2]) &&
  isText(c[3]) &&
  Number.isInteger(c[4]);

/** Routes the EVENTS queue's messages (src/wiring.ts): this kind goes to the delayed rebuild, the rest are events. */
export const isRollupRebuildMessage = (b: unknown): boolean =>
  Boolean(b) && typeof b === "object" && (b as { kind?: unknown }).kind === "rollup_rebuild";

/** The whole shape, checked by the consumer (a malformed message is dropped, not retried). */
export const isWellFormedRebuild = (b: unknown): b is RollupRebuildMessage => {
  const m = b as RollupRebuildMessage;
  return (
    isRollupRebuildMessage(b) &&
    isText(m.tenantId) &&
    Number.isInteger(m.round) &&
    m.round >= 0 &&
    Array.isArray(m.cells) &&
    m.cells.length > 0 &&
    m.cells.every(isCell)
  );
};

export const cellsOf = (m: RollupRebuildMessage): WaitingCell[] =>
  m.cells.map(([rollup, tenantId, locationId, day, version]) => ({
    rollup,
    cell: { tenantId, locationId, day },
    version,
    builtAt: null,
  }));

/**
 * Seconds until every cell's interval has passed (its last rebuild plus `intervalMs`), rounded up,
 * at least 1: the message arrives when all of them are due, so one message serves the batch.
 */
export function secondsUntilDue(cells: Pick<WaitingCell, "builtAt">[], intervalMs: number, now: number): number {
  const last = Math.max(...cells.map((c) => (c.builtAt ? Date.parse(c.builtAt) : Number.NEGATIVE_INFINITY)));
  return Math.min(MAX_DELAY_SECONDS, Math.max(1, Math.ceil((last + intervalMs - now) / 1000)));
}

/** Cloudflare Queues' longest delay (12 hours, developers.cloudflare.com/queues/configuration/batching-retries/). */
const MAX_DELAY_SECONDS = 43_200;

/** One delayed message for the cells (none for none). */
export async function scheduleRebuild(
  env: Pick<Env, "EVENTS">,
  cells: WaitingCell[],
  intervalMs: number,
  now: number,
  round = 0,
): Promise<void> {
  if (!cells.length) return;
  const message: RollupRebuildMessage = {
    kind: "rollup_rebuild",
    tenantId: cells[0]!.cell.tenantId,
    round,
    cells: cells.map(({ rollup, cell, version }) => [rollup, cell.tenantId, cell.locationId, cell.day, version]),
  };
  await env.EVENTS.send(message, { delaySeconds: secondsUntilDue(cells, intervalMs, now) });
}
