import type { EventHandler } from "../../background/events";
import type { ShardSweep } from "../../background/shards";
import { sendDueDigests } from "./digest-sweep";
import { alertOnReview, selectAlertEvents } from "./instant";

/** Instant alerts of a new review to the subscriptions it matches (docs/alerts.md). */
export const reviewAlertsHandler: EventHandler = {
  name: "review-alerts",
  select: selectAlertEvents,
  handle: async (event, env, shard) => void (await alertOnReview(env, shard, event)),
};

/** Daily and weekly digests, each at most once per subscription and period. */
export const alertDigestsSweep: ShardSweep = {
  name: "alert-digests",
  run: async (env, shard, now) => void (await sendDueDigests(env, shard, now)),
};
