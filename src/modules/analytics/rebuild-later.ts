import { z } from "zod";
import type { Env } from "../../env";
import type { Rollup, WaitingCell } from "./cells";

/**
 * The EVENTS queue's second kind of message (beside event envelopes): a delayed rebuild of the cells
 * one event batch left dirty because they were rebuilt under ROLLUP_REBUILD_SECONDS ago. Each cell
 * carries the touch count the batch brought it to: a rebuild that covers it (built_version reached
 * it) makes the message's work done, whoever did it (docs/analytics.md, "Maintenance").
 * `tenantId` (a tenant of the batch) routes it to the batch's shard; `round` counts reschedules.
 */
const Text = z.string().min(1);
/** [rollup, tenantId, locationId, day, version] */
const Cell = z.tuple([
  z.enum(["funnel", "reviews", "responses"]) satisfies z.ZodType<Rollup>,
  Text,
  Text,
  Text,
  z.number().int(),
]);
const RollupRebuildBody = z.object({
  kind: z.literal("rollup_rebuild"),
  tenantId: Text,
  round: z.number().int().min(0),
  cells: z.array(Cell).min(1),
});
export type RollupRebuildMessage = z.infer<typeof RollupRebuildBody>;

/** Routes the EVENTS queue's messages (src/wiring.ts): this kind goes to the delayed rebuild, the rest are events. */
export const isRollupRebuildMessage = (b: unknown): boolean =>
  Boolean(b) && typeof b === "object" && (b as { kind?: unknown }).kind === "rollup_rebuild";

/** The whole shape, checked by the consumer (a malformed message is dropped, not retried). */
export const isWellFormedRebuild = (b: unknown): b is RollupRebuildMessage => RollupRebuildBody.safeParse(b).success;

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
