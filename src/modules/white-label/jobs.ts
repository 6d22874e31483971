import { createDb } from "../../db/client";
import { CRONS, registerSweep } from "../../jobs/cron";
import { sweepHostnameStatus } from "./hostnames";

/** Every 5 minutes: custom hostnames waiting for DNS/certificates (and active ones daily) are re-checked with Cloudflare. */
registerSweep(CRONS.frequent, {
  name: "custom-hostname-status",
  run: async (env, now) => {
    await sweepHostnameStatus(env, createDb(env.DB), now);
  },
});
