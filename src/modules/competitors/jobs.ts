import { CRONS, registerSweep } from "../../jobs/cron";
import { refreshDueCompetitors } from "./refresh";

registerSweep(CRONS.frequent, { name: "competitor-refresh", run: async (env, now) => void (await refreshDueCompetitors(env, now)) });
