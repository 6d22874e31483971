import type { Sweep } from "../../background/cron";
import type { QueueConsumer } from "../../background/queue";
import { escalateOverdue } from "./escalation";
import { checkPendingReplies } from "./moderation-sweep";
import { consumeReviewSync, scheduleDueSyncs } from "./sync";

export const reviewSyncConsumer: QueueConsumer = (batch, env) => consumeReviewSync(batch, env);
export const reviewSyncScheduleSweep: Sweep = { name: "review-sync-schedule", run: (env, now) => scheduleDueSyncs(env, now) };
export const slaEscalationSweep: Sweep = { name: "sla-escalation", run: (env, now) => escalateOverdue(env, now).then(() => undefined) };
export const replyModerationSweep: Sweep = { name: "reply-moderation", run: (env, now) => checkPendingReplies(env, now).then(() => undefined) };
