import { createDb } from "../db/client";
import type { Env } from "../env";
import { dispatchStaleEvents } from "../lib/events";

export type Sweep = { name: string; run: (env: Env, now: Date) => Promise<void> };

/** Cron expression (as in wrangler.toml [triggers]) -> sweeps. Domains register theirs here. */
export const CRONS = { frequent: "*/5 * * * *", daily: "17 3 * * *" } as const;
const sweeps: Record<string, Sweep[]> = {
  [CRONS.frequent]: [{ name: "dispatch-stale-events", run: (env) => dispatchStaleEvents(createDb(env.DB), env).then(() => undefined) }],
  [CRONS.daily]: [],
};

export const registerSweep = (cron: string, sweep: Sweep) => {
  (sweeps[cron] ??= []).push(sweep);
};

export async function handleScheduled(controller: ScheduledController, env: Env): Promise<void> {
  const now = new Date(controller.scheduledTime);
  const due = sweeps[controller.cron] ?? [];
  const results = await Promise.allSettled(due.map((s) => s.run(env, now)));
  results.forEach((r, i) => {
    if (r.status === "rejected") {
      console.error(JSON.stringify({ level: "error", message: "sweep failed", sweep: due[i]!.name, error: String(r.reason) }));
    }
  });
  if (results.some((r) => r.status === "rejected")) throw new Error("one or more sweeps failed");
}
