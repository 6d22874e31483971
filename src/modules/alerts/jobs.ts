import { CRONS, registerSweep } from "../../jobs/cron";
import { registerEventHandler } from "../../jobs/events";
import { sendDueDigests } from "./digest-sweep";
import { alertOnReview, selectAlertEvents } from "./instant";

registerEventHandler({ name: "review-alerts", select: selectAlertEvents, handle: async (event, env) => void (await alertOnReview(env, event)) });
registerSweep(CRONS.frequent, { name: "alert-digests", run: async (env, now) => void (await sendDueDigests(env, now)) });
