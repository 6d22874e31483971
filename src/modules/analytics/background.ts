import { createDb } from "../../db/client";
import type { Sweep } from "../../background/cron";
import type { EventHandler } from "../../background/events";
import { purgeCleanCells } from "./cells";
import { applyEventsToRollups, flushDirtyCells } from "./events";

export const analyticsRollupsHandler: EventHandler = { name: "analytics-rollups", handleBatch: applyEventsToRollups };

export const flushDirtyRollupsSweep: Sweep = { name: "flush-dirty-rollups", run: async (env) => void (await flushDirtyCells(env)) };

export const purgeRollupCellsSweep: Sweep = {
  name: "purge-rollup-cells",
  // a touch of an older day re-creates its cell, so the bookkeeping need not outlive the week
  run: async (env, now) => void (await purgeCleanCells(createDb(env.DB), new Date(now.getTime() - 8 * 24 * 3600 * 1000).toISOString().slice(0, 10))),
};
