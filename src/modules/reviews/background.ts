import type { ShardConsumer, ShardSweep } from "../../background/shards";
import { escalateOverdue } from "./escalation";
import { checkPendingReplies } from "./moderation-sweep";
import { consumeReviewSync, scheduleDueSyncs } from "./sync";

export const reviewSyncConsumer: ShardConsumer = (batch, env, shard) => consumeReviewSync(batch, env, shard);
export const reviewSyncScheduleSweep: ShardSweep = {
  name: "review-sync-schedule",
  run: (env, shard, now) => scheduleDueSyncs(env, shard, now),
};
export const slaEscalationSweep: ShardSweep = {
  name: "sla-escalation",
  run: (env, shard, now) => escalateOverdue(env, shard, now).then(() => undefined),
};
export const replyModerationSweep: ShardSweep = {
  name: "reply-moderation",
  run: (env, shard, now) => checkPendingReplies(env, shard, now).then(() => undefined),
};
