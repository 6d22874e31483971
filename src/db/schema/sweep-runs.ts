import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns";

export const SWEEP_OUTCOMES = ["ok", "failed"] as const;
export type SweepOutcome = (typeof SWEEP_OUTCOMES)[number];

/**
 * Each sweep's last run per cron trigger (src/background/cron.ts writes it after every run; GET
 * /admin/status reads it). Control-plane rows: a sweep across shards is one run. One row per
 * (cron, sweep), upserted, so the table never grows.
 */
export const sweepRuns = sqliteTable(
  "sweep_runs",
  {
    cron: text("cron").notNull(),
    sweep: text("sweep").notNull(),
    startedAt: timestamp("started_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
    outcome: text("outcome", { enum: SWEEP_OUTCOMES }).notNull(),
    /** the failure, null after a run that succeeded */
    error: text("error"),
    /** the start of the last run that succeeded (null: none yet) */
    lastOkAt: timestamp("last_ok_at"),
  },
  (t) => [primaryKey({ columns: [t.cron, t.sweep] })],
);
