import { CRONS, registerSweep } from "../../../jobs/cron";
import { registerEventHandler } from "../../../jobs/events";
import { autoReplyToReview, selectAutoReplyEvents } from "./fire";
import { publishDueAutoReplies } from "./publish-due";

registerEventHandler({ name: "auto-replies", select: selectAutoReplyEvents, handle: async (event, env) => void (await autoReplyToReview(env, event)) });
registerSweep(CRONS.frequent, { name: "auto-reply-publish", run: async (env, now) => void (await publishDueAutoReplies(env, now)) });
