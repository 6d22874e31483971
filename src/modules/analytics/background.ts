import type { EventHandler } from "../../background/events";
import type { ShardSweep } from "../../background/shards";
import { purgeCleanCells } from "./cells";
import { applyEventsToRollups, flushDirtyCells } from "./events";

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
