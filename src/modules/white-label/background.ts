import type { Sweep } from "../../background/cron";
import { controlDb } from "../../db/shards";
import { sweepHostnameStatus } from "./hostnames";

/** Every 5 minutes: custom hostnames waiting for DNS/certificates (and active ones daily) are re-checked with Cloudflare. */
export const customHostnameStatusSweep: Sweep = {
  name: "custom-hostname-status",
  run: async (env, now) => {
    await sweepHostnameStatus(env, controlDb(env), now);
  },
};
