import type { Env } from "../env";

export type Sweep = { name: string; run: (env: Env, now: Date) => Promise<void> };

/** Cron expressions, exactly as in wrangler.toml [triggers]. */
export const CRONS = { frequent: "*/5 * * * *", daily: "17 3 * * *" } as const;
export type CronExpression = (typeof CRONS)[keyof typeof CRONS];
export type Sweeps = Record<CronExpression, Sweep[]>;

/** Runs every sweep of the trigger's cron side by side; one failure fails the run (after all ran). */
export function runSweeps(sweeps: Sweeps) {
  return async (controller: ScheduledController, env: Env): Promise<void> => {
    const now = new Date(controller.scheduledTime);
    const due = (sweeps as Record<string, Sweep[]>)[controller.cron] ?? [];
    const results = await Promise.allSettled(due.map((s) => s.run(env, now)));
    results.forEach((r, i) => {
      if (r.status === "rejected") {
        console.error(JSON.stringify({ level: "error", message: "sweep failed", sweep: due[i]!.name, error: String(r.reason) }));
      }
    });
    if (results.some((r) => r.status === "rejected")) throw new Error("one or more sweeps failed");
  };
}
