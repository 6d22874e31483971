import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import {
  createRouter,
  IdParam,
  json,
  jsonBody,
  PageQuerySchema,
  paged,
  type Router,
  stdErrors,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
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

const tags = ["Alerts"];
const caller = (c: Context<AppEnv>): AlertCaller => alertCallerFor(c.var.access.role);
const ownOrManaged =
  "Every role manages its own subscriptions; managers and up also other users' (another user's is 404 to the rest).";

const list = createRoute({
  method: "get",
  path: "/v1/alert-subscriptions",
  tags,
  security: TENANT_SECURITY,
  summary: "List alert subscriptions (your own; managers: everyone's or userId's)",
  operationId: "listAlertSubscriptions",
  request: { query: AlertSubscriptionListQuery },
  responses: { 200: json(paged(AlertSubscriptionSchema).openapi("AlertSubscriptionPage")), ...stdErrors },
});

const create = createRoute({
  method: "post",
  path: "/v1/alert-subscriptions",
  tags,
  security: TENANT_SECURITY,
  summary: "Subscribe to new-review alerts and/or a digest",
  operationId: "createAlertSubscription",
  description: `${ownOrManaged} The recipient must hold a role on the tenant. timeZone defaults to the location's, else the tenant's first location's, else UTC.`,
  request: { body: jsonBody(CreateAlertSubscriptionBody) },
  responses: { 201: json(AlertSubscriptionSchema, "Created"), ...stdErrors },
});

const get = createRoute({
  method: "get",
  path: "/v1/alert-subscriptions/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Get an alert subscription",
  operationId: "getAlertSubscription",
  request: { params: IdParam },
  responses: { 200: json(AlertSubscriptionSchema), ...stdErrorsWithNotFound },
});

const update = createRoute({
  method: "patch",
  path: "/v1/alert-subscriptions/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Update an alert subscription",
  operationId: "updateAlertSubscription",
  description: `${ownOrManaged} Turning instantEmail or a digest back on after an unsubscribe link is done here.`,
  request: { params: IdParam, body: jsonBody(UpdateAlertSubscriptionBody) },
  responses: { 200: json(AlertSubscriptionSchema), ...stdErrorsWithNotFound },
});

const remove = createRoute({
  method: "delete",
  path: "/v1/alert-subscriptions/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Delete an alert subscription",
  operationId: "deleteAlertSubscription",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...stdErrorsWithNotFound },
});

const sends = createRoute({
  method: "get",
  path: "/v1/alert-subscriptions/{id}/sends",
  tags,
  security: TENANT_SECURITY,
  summary: "What went out for a subscription (instant alerts and digests), oldest first",
  operationId: "listAlertSubscriptionSends",
  request: { params: IdParam, query: PageQuerySchema },
  responses: { 200: json(paged(AlertSendSchema).openapi("AlertSendPage")), ...stdErrorsWithNotFound },
});

export const alertRoutes: Router = createRouter()
  .openapi(list, async (c) => c.json(await listAlertSubscriptions(svc(c), caller(c), c.req.valid("query")), 200))
  .openapi(create, async (c) => c.json(await createAlertSubscription(svc(c), caller(c), c.req.valid("json")), 201))
  .openapi(get, async (c) => c.json(await getAlertSubscription(svc(c), caller(c), c.req.valid("param").id), 200))
  .openapi(update, async (c) =>
    c.json(await updateAlertSubscription(svc(c), caller(c), c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(remove, async (c) => {
    await deleteAlertSubscription(svc(c), caller(c), c.req.valid("param").id);
    return c.body(null, 204);
  })
  .openapi(sends, async (c) =>
    c.json(await listAlertSends(svc(c), caller(c), c.req.valid("param").id, c.req.valid("query")), 200),
  );
