import type { Sweep } from "../../jobs/cron";
import { refreshDueCompetitors } from "./refresh";

export const competitorRefreshSweep: Sweep = { name: "competitor-refresh", run: async (env, now) => void (await refreshDueCompetitors(env, now)) };
