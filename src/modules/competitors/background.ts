import type { Sweep } from "../../background/cron";
import { refreshDueCompetitors } from "./refresh";

export const competitorRefreshSweep: Sweep = { name: "competitor-refresh", run: async (env, now) => void (await refreshDueCompetitors(env, now)) };
