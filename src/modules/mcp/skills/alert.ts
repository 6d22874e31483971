import { z } from "@hono/zod-openapi";
import { paged } from "../../../lib/openapi";
import { AlertSubscriptionSchema } from "../../alerts/schemas";
import { listAlertSubscriptions } from "../../alerts/service";
import { skill } from "./registry";

export const reviewAlertSubscriptionsSkill = skill({
  name: "review.alert-subscriptions",
  title: "List review alert subscriptions",
  description:
    "Lists who is alerted about new reviews and who gets a daily or weekly review digest: per user and location (null = every location), " +
    "the instant-alert filters (maxRating: ratings at or below it; siteTypes; keywords), whether alerts go by email and/or a webhook, " +
    "the digest frequency, local hour, weekday and time zone, and nextDigestAt (UTC). A signed-in user sees their own; an API key sees the whole tenant's.",
  input: z.object({
    userId: z.string().max(64).optional().describe("only this user's subscriptions"),
    locationId: z.string().max(64).optional().describe("only subscriptions for this location"),
    limit: z.number().int().min(1).max(200).default(25).describe("page size, 1 to 200 (default 25)"),
    cursor: z.string().max(512).optional().describe("pageInfo.endCursor from the previous page"),
  }),
  output: paged(AlertSubscriptionSchema),
  scopes: ["read:reviews"],
  access: "read",
  // a person (OAuth, session) sees their own alert settings; a key reads for the whole tenant
  handler: async (ctx, input) => listAlertSubscriptions(ctx, { managesOthers: ctx.actor.type !== "user" }, input),
});
