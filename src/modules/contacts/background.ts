import type { Sweep } from "../../background/cron";
import { runRetentionSweep } from "./retention";

export const contactsRetentionSweep: Sweep = { name: "contacts-retention", run: async (env, now) => void (await runRetentionSweep(env, now)) };
