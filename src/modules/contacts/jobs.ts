import { CRONS, registerSweep } from "../../jobs/cron";
import { runRetentionSweep } from "./retention";

registerSweep(CRONS.daily, { name: "contacts-retention", run: async (env, now) => void (await runRetentionSweep(env, now)) });
