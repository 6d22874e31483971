import { CRONS, registerSweep } from "../../jobs/cron";
import { registerEventHandler } from "../../jobs/events";
import { purgeCleanCells } from "./cells";
import { createDb } from "../../db/client";
import { applyEventsToRollups, flushDirtyCells } from "./events";

registerEventHandler({ name: "analytics-rollups", handleBatch: applyEventsToRollups });

registerSweep(CRONS.frequent, { name: "flush-dirty-rollups", run: async (env) => void (await flushDirtyCells(env)) });

registerSweep(CRONS.daily, {
  name: "purge-rollup-cells",
  // a touch of an older day re-creates its cell, so the bookkeeping need not outlive the week
  run: async (env, now) => void (await purgeCleanCells(createDb(env.DB), new Date(now.getTime() - 8 * 24 * 3600 * 1000).toISOString().slice(0, 10))),
});
