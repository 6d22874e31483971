import { z } from "@hono/zod-openapi";
import { paged } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { AlertSubscriptionSchema } from "./schemas";
import { listAlertSubscriptions } from "./service";

// The alerts' operations in the catalogue (src/lib/operation.ts).

export const reviewAlertSubscriptionsOperation = defineOperation({
  name: "review.alert-subscriptions",
  summary: "List review alert subscriptions",
  description:
    "Who is alerted about new reviews or gets a review digest, per user and location (null: all): alert filters " +
    "(maxRating: at or below), email or webhook, digest schedule. A signed-in user sees their own, an API key all.",
  input: z.object({
    userId: z.string().max(64).optional(),
    locationId: z.string().max(64).optional(),
    limit: z.number().int().min(1).max(200).default(25),
    cursor: z.string().max(512).optional(),
  }),
  output: paged(AlertSubscriptionSchema),
  scopes: ["read:reviews"],
  access: "read",
  variantOf: {
    operationId: "listAlertSubscriptions",
    why: "a key reads the whole tenant's subscriptions (REST keeps others' to managers); page size default 25",
  },
  mcp: { title: "List review alert subscriptions" },
  // a person (OAuth, session) sees their own alert settings; a key reads for the whole tenant
  handler: async (ctx, input) => listAlertSubscriptions(ctx, { managesOthers: ctx.actor.type !== "user" }, input),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [reviewAlertSubscriptionsOperation];
