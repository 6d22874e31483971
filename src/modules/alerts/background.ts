import type { Sweep } from "../../background/cron";
import type { EventHandler } from "../../background/events";
import { sendDueDigests } from "./digest-sweep";
import { alertOnReview, selectAlertEvents } from "./instant";

/** Instant alerts of a new review to the subscriptions it matches (docs/alerts.md). */
export const reviewAlertsHandler: EventHandler = { name: "review-alerts", select: selectAlertEvents, handle: async (event, env) => void (await alertOnReview(env, event)) };

/** Daily and weekly digests, each at most once per subscription and period. */
export const alertDigestsSweep: Sweep = { name: "alert-digests", run: async (env, now) => void (await sendDueDigests(env, now)) };
