import type { EventHandler } from "../../background/events";
import type { ShardConsumer, ShardSweep } from "../../background/shards";
import { backoffSeconds } from "../../lib/backoff";
import { log } from "../../lib/log";
import { purgeCleanCells } from "./cells";
import { applyEventsToRollups, flushDirtyCells, rebuildWaitingCells } from "./events";
import { isWellFormedRebuild, type RollupRebuildMessage } from "./rebuild-later";

export { isRollupRebuildMessage } from "./rebuild-later";

export const analyticsRollupsHandler: EventHandler = { name: "analytics-rollups", handleBatch: applyEventsToRollups };

export const flushDirtyRollupsSweep: ShardSweep = {
  name: "flush-dirty-rollups",
  run: async (env, shard) => void (await flushDirtyCells(env, shard)),
};

export const purgeRollupCellsSweep: ShardSweep = {
  name: "purge-rollup-cells",
  // a touch of an older day re-creates its cell, so the bookkeeping need not outlive the week
  run: async (_env, shard, now) =>
    void (await purgeCleanCells(shard, new Date(now.getTime() - 8 * 24 * 3600 * 1000).toISOString().slice(0, 10))),
};

/**
 * The EVENTS queue's `rollup_rebuild` messages (rebuild-later.ts), routed here by src/wiring.ts: all of a
 * batch in one pass. A malformed one is dropped; a failure retries them with backoff (idempotent: a
 * redelivery finds its cells covered), and after the queue's retries they are dead-lettered as events.
 */
export const rollupRebuildConsumer: ShardConsumer = async (batch, env, shard) => {
  const valid = batch.messages.filter((m) => isWellFormedRebuild(m.body));
  for (const m of batch.messages)
    if (!valid.includes(m)) {
      log.warn("malformed rollup_rebuild message dropped", { id: m.id });
      m.ack();
    }
  try {
    await rebuildWaitingCells(
      valid.map((m) => m.body as RollupRebuildMessage),
      env,
      shard,
    );
    for (const m of valid) m.ack();
  } catch (err) {
    log.error("delayed rollup rebuild failed", { messages: valid.length, error: String(err) });
    for (const m of valid) m.retry({ delaySeconds: backoffSeconds(m.attempts) });
  }
};
