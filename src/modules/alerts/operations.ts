import { z } from "@hono/zod-openapi";
import { IdParam, PageQuerySchema, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, noContent, type Operation, type OperationContext } from "../../lib/operation";
import {
  AlertSendSchema,
  AlertSubscriptionListQuery,
  AlertSubscriptionSchema,
  CreateAlertSubscriptionBody,
  UpdateAlertSubscriptionBody,
} from "./schemas";
import {
  type AlertCaller,
  alertCallerFor,
  createAlertSubscription,
  deleteAlertSubscription,
  getAlertSubscription,
  listAlertSends,
  listAlertSubscriptions,
  updateAlertSubscription,
} from "./service";

// The alerts' operations in the catalogue (src/lib/operation.ts). REST's alert subscriptions are closed to API
// keys (no scope admits them: src/modules/identity/scopes.ts) and open to every role for their own.

const tags = ["Alerts"];
const ownOrManaged =
  "Every role manages its own subscriptions; managers and up also other users' (another user's is 404 to the rest).";

/** The caller as its door resolved its role on the tenant; without one (no door gives none) it manages no one else. */
const callerOf = (ctx: OperationContext): AlertCaller =>
  ctx.access ? alertCallerFor(ctx.access.role) : { managesOthers: false };

export const listAlertSubscriptionsOperation = defineOperation({
  name: "alert-subscription.list",
  operationId: "listAlertSubscriptions",
  method: "get",
  path: "/v1/alert-subscriptions",
  tags,
  summary: "List alert subscriptions (your own; managers: everyone's or userId's)",
  request: { query: AlertSubscriptionListQuery },
  output: paged(AlertSubscriptionSchema).openapi("AlertSubscriptionPage"),
  errors: stdErrors,
  scopes: [],
  access: "read",
  console: {},
  handler: (ctx, input) => listAlertSubscriptions(ctx, callerOf(ctx), input),
});

export const createAlertSubscriptionOperation = defineOperation({
  name: "alert-subscription.create",
  operationId: "createAlertSubscription",
  method: "post",
  path: "/v1/alert-subscriptions",
  tags,
  summary: "Subscribe to new-review alerts and/or a digest",
  description: `${ownOrManaged} The recipient must hold a role on the tenant. timeZone defaults to the location's, else the tenant's first location's, else UTC.`,
  request: { body: CreateAlertSubscriptionBody },
  status: 201,
  output: AlertSubscriptionSchema,
  errors: stdErrors,
  scopes: [],
  access: "write",
  console: {},
  handler: (ctx, input) => createAlertSubscription(ctx, callerOf(ctx), input),
});

export const getAlertSubscriptionOperation = defineOperation({
  name: "alert-subscription.get",
  operationId: "getAlertSubscription",
  method: "get",
  path: "/v1/alert-subscriptions/{id}",
  tags,
  summary: "Get an alert subscription",
  request: { params: IdParam },
  output: AlertSubscriptionSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: (ctx, input) => getAlertSubscription(ctx, callerOf(ctx), input.id),
});

export const updateAlertSubscriptionOperation = defineOperation({
  name: "alert-subscription.update",
  operationId: "updateAlertSubscription",
  method: "patch",
  path: "/v1/alert-subscriptions/{id}",
  tags,
  summary: "Update an alert subscription",
  description: `${ownOrManaged} Turning instantEmail or a digest back on after an unsubscribe link is done here.`,
  request: { params: IdParam, body: UpdateAlertSubscriptionBody },
  output: AlertSubscriptionSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "write",
  console: {},
  handler: (ctx, { id, ...patch }) => updateAlertSubscription(ctx, callerOf(ctx), id, patch),
});

export const deleteAlertSubscriptionOperation = defineOperation({
  name: "alert-subscription.delete",
  operationId: "deleteAlertSubscription",
  method: "delete",
  path: "/v1/alert-subscriptions/{id}",
  tags,
  summary: "Delete an alert subscription",
  request: { params: IdParam },
  status: 204,
  statusText: "Deleted",
  output: noContent,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "write",
  destructive: true,
  console: {},
  handler: async (ctx, input) => {
    await deleteAlertSubscription(ctx, callerOf(ctx), input.id);
  },
});

export const listAlertSubscriptionSendsOperation = defineOperation({
  name: "alert-subscription.sends",
  operationId: "listAlertSubscriptionSends",
  method: "get",
  path: "/v1/alert-subscriptions/{id}/sends",
  tags,
  summary: "What went out for a subscription (instant alerts and digests), oldest first",
  request: { params: IdParam, query: PageQuerySchema },
  output: paged(AlertSendSchema).openapi("AlertSendPage"),
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: (ctx, { id, ...query }) => listAlertSends(ctx, callerOf(ctx), id, query),
});

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
export const operations: Operation[] = [
  listAlertSubscriptionsOperation,
  createAlertSubscriptionOperation,
  getAlertSubscriptionOperation,
  updateAlertSubscriptionOperation,
  deleteAlertSubscriptionOperation,
  listAlertSubscriptionSendsOperation,
  reviewAlertSubscriptionsOperation,
];
