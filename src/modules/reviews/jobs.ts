import { CRONS, registerSweep } from "../../jobs/cron";
import { registerQueueConsumer } from "../../jobs/queue";
import { escalateOverdue } from "./escalation";
import { consumeReviewSync, scheduleDueSyncs } from "./sync";

registerQueueConsumer("review-sync", (batch, env) => consumeReviewSync(batch, env));
registerSweep(CRONS.frequent, { name: "review-sync-schedule", run: (env, now) => scheduleDueSyncs(env, now) });
registerSweep(CRONS.frequent, { name: "sla-escalation", run: (env, now) => escalateOverdue(env, now).then(() => undefined) });
