import type { EventHandler } from "../../../background/events";
import type { ShardSweep } from "../../../background/shards";
import { autoReplyToReview, selectAutoReplyEvents } from "./fire";
import { publishDueAutoReplies } from "./publish-due";

/** Drafts the auto-reply a rule asks for when a review arrives (docs/reviews.md, Auto-replies). */
export const autoRepliesHandler: EventHandler = {
  name: "auto-replies",
  select: selectAutoReplyEvents,
  handle: async (event, env) => void (await autoReplyToReview(env, event)),
};

/** Publishes the scheduled auto-replies whose delay has passed and no one intervened. */
export const autoReplyPublishSweep: ShardSweep = {
  name: "auto-reply-publish",
  run: async (env, shard, now) => void (await publishDueAutoReplies(env, shard, now)),
};
