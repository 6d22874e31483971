import { sql } from "drizzle-orm";
import { type SweepOutcome, sweepRuns } from "../db/schema";
import { controlDb } from "../db/shards";
import type { Env } from "../env";
import { log } from "../lib/log";
import { chunkRows } from "../lib/sql";

export interface SweepRun {
  sweep: string;
  startedAt: string;
  durationMs: number;
  outcome: SweepOutcome;
  error: string | null;
}

/**
 * Records each sweep's run on the control plane (one upserted row per cron and sweep; GET
 * /admin/status shows them). `last_ok_at` moves only on success, so a failing sweep still shows
 * when it last worked. A failure to record is logged, never thrown: it must not fail the sweeps.
 */
export async function recordSweepRuns(env: Env, cron: string, runs: SweepRun[]): Promise<void> {
  if (!runs.length) return;
  try {
    // one row per sweep name (an upsert cannot touch a row twice in one statement)
    const rows = [...new Map(runs.map((r) => [r.sweep, r])).values()].map((r) => ({
      cron,
      ...r,
      error: r.error?.slice(0, 1000) ?? null,
      lastOkAt: r.outcome === "ok" ? r.startedAt : null,
    }));
    const db = controlDb(env);
    // D1 binds at most 100 parameters per statement: a cron's dozen sweeps take two statements, one batch
    const statements = chunkRows(sweepRuns, rows).map((chunk) =>
      db
        .insert(sweepRuns)
        .values(chunk)
        .onConflictDoUpdate({
          target: [sweepRuns.cron, sweepRuns.sweep],
          set: {
            startedAt: sql.raw("excluded.started_at"),
            durationMs: sql.raw("excluded.duration_ms"),
            outcome: sql.raw("excluded.outcome"),
            error: sql.raw("excluded.error"),
            lastOkAt: sql.raw("coalesce(excluded.last_ok_at, sweep_runs.last_ok_at)"),
          },
        }),
    );
    await db.batch(statements as [(typeof statements)[0], ...typeof statements]);
  } catch (e) {
    log.error("sweep runs not recorded", { cron, error: String(e) });
  }
}
