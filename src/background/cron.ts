import type { Env } from "../env";
import { log, withLogContext } from "../lib/log";
import type { SweepRun } from "./sweep-runs";

export type Sweep = { name: string; run: (env: Env, now: Date) => Promise<void> };

/** Cron expressions, exactly as in wrangler.toml [triggers]. */
export const CRONS = { frequent: "*/5 * * * *", daily: "17 3 * * *" } as const;
export type CronExpression = (typeof CRONS)[keyof typeof CRONS];
export type Sweeps = Record<CronExpression, Sweep[]>;

/**
 * Runs every sweep of the trigger's cron side by side; one failure fails the run (after all ran).
 * Each sweep's start, duration and outcome are recorded on the control plane (sweep_runs, GET /admin/status).
 */
export function runSweeps(sweeps: Sweeps) {
  return (controller: ScheduledController, env: Env): Promise<void> =>
    withLogContext({ cron: controller.cron }, () => runDue(sweeps, controller, env));
}

async function runDue(sweeps: Sweeps, controller: ScheduledController, env: Env): Promise<void> {
  const now = new Date(controller.scheduledTime);
  const due = (sweeps as Record<string, Sweep[]>)[controller.cron] ?? [];
  const runs: SweepRun[] = [];
  const results = await Promise.allSettled(
    due.map(async (s, i) => {
      const startedAt = new Date();
      const done = (outcome: SweepRun["outcome"], error: string | null) =>
        (runs[i] = {
          sweep: s.name,
          startedAt: startedAt.toISOString(),
          durationMs: Date.now() - startedAt.getTime(),
          outcome,
          error,
        });
      try {
        await withLogContext({ sweep: s.name }, () => s.run(env, now));
        done("ok", null);
      } catch (e) {
        done("failed", String(e));
        throw e;
      }
    }),
  );
  // imported here, not at the top: the Worker's global scope imports this file, and sweep-runs pulls
  // in drizzle and the schema (docs/performance.md, Start-up)
  const { recordSweepRuns } = await import("./sweep-runs");
  await recordSweepRuns(env, controller.cron, runs.filter(Boolean));
  for (const [i, r] of results.entries()) {
    if (r.status === "rejected") log.error("sweep failed", { sweep: due[i]!.name, error: String(r.reason) });
  }
  if (results.some((r) => r.status === "rejected")) throw new Error("one or more sweeps failed");
}
