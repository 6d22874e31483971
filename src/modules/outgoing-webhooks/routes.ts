import { createRoute } from "@hono/zod-openapi";
import {
  createRouter,
  errors,
  IdParam,
  json,
  jsonBody,
  paged,
  type Router,
  stdErrors,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canAdminister } from "../../middleware/tenant";
import { listDeliveries, redeliver, sendTestWebhook } from "./deliveries.service";
import {
  CreateWebhookBody,
  DeliveryListQuery,
  DeliveryParams,
  UpdateWebhookBody,
  WebhookDeliverySchema,
  WebhookListQuery,
  WebhookSecretSchema,
  WebhookSubscriptionSchema,
  WebhookWithSecretSchema,
} from "./schemas";
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from "./service";

const tags = ["Webhooks"];
const base = { tags, security: TENANT_SECURITY } as const;

const list = createRoute({
  ...base,
  method: "get",
  path: "/v1/webhooks",
  operationId: "listWebhooks",
  summary: "List webhook subscriptions",
  request: { query: WebhookListQuery },
  responses: { 200: json(paged(WebhookSubscriptionSchema).openapi("WebhookSubscriptionPage")), ...stdErrors },
});

const create = createRoute({
  ...base,
  middleware: [canAdminister] as const,
  method: "post",
  path: "/v1/webhooks",
  operationId: "createWebhook",
  summary: "Subscribe an https endpoint to events (tenant_admin); the whsec_ secret is shown only here",
  request: { body: jsonBody(CreateWebhookBody) },
  responses: { 201: json(WebhookWithSecretSchema, "Created"), ...stdErrors, 409: errors[409] },
});

const get = createRoute({
  ...base,
  method: "get",
  path: "/v1/webhooks/{id}",
  operationId: "getWebhook",
  summary: "Get a webhook subscription",
  request: { params: IdParam },
  responses: { 200: json(WebhookSubscriptionSchema), ...stdErrorsWithNotFound },
});

const update = createRoute({
  ...base,
  middleware: [canAdminister] as const,
  method: "patch",
  path: "/v1/webhooks/{id}",
  summary: "Update a webhook subscription (tenant_admin)",
  operationId: "updateWebhook",
  request: { params: IdParam, body: jsonBody(UpdateWebhookBody) },
  responses: { 200: json(WebhookSubscriptionSchema), ...stdErrorsWithNotFound },
});

const remove = createRoute({
  ...base,
  middleware: [canAdminister] as const,
  method: "delete",
  path: "/v1/webhooks/{id}",
  summary: "Delete a webhook subscription and its delivery log (tenant_admin)",
  operationId: "deleteWebhook",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...stdErrorsWithNotFound },
});

const rotate = createRoute({
  ...base,
  middleware: [canAdminister] as const,
  method: "post",
  path: "/v1/webhooks/{id}/rotate-secret",
  operationId: "rotateWebhookSecret",
  summary: "Replace the signing secret (tenant_admin); the new secret is shown only here",
  request: { params: IdParam },
  responses: { 200: json(WebhookSecretSchema), ...stdErrorsWithNotFound },
});

const deliveries = createRoute({
  ...base,
  method: "get",
  path: "/v1/webhooks/{id}/deliveries",
  summary: "Delivery log, newest first",
  operationId: "listWebhookDeliveries",
  request: { params: IdParam, query: DeliveryListQuery },
  responses: { 200: json(paged(WebhookDeliverySchema).openapi("WebhookDeliveryPage")), ...stdErrorsWithNotFound },
});

const test = createRoute({
  ...base,
  middleware: [canAdminister] as const,
  method: "post",
  path: "/v1/webhooks/{id}/test",
  operationId: "testWebhook",
  summary: "Send a signed webhook.test payload now and return the recorded delivery (tenant_admin)",
  request: { params: IdParam },
  responses: { 200: json(WebhookDeliverySchema), ...stdErrorsWithNotFound },
});

const redeliverRoute = createRoute({
  ...base,
  middleware: [canAdminister] as const,
  method: "post",
  path: "/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver",
  operationId: "redeliverWebhookDelivery",
  summary: "Queue a past delivery again, same webhook-id and body (tenant_admin); 409 when the endpoint is disabled",
  request: { params: DeliveryParams },
  responses: { 202: json(WebhookDeliverySchema, "Queued"), ...stdErrorsWithNotFound, 409: errors[409] },
});

export const webhookRoutes: Router = createRouter()
  .openapi(list, async (c) => c.json(await listWebhooks(svc(c), c.req.valid("query")), 200))
  .openapi(create, async (c) => c.json(await createWebhook(svc(c), c.req.valid("json")), 201))
  .openapi(get, async (c) => c.json(await getWebhook(svc(c), c.req.valid("param").id), 200))
  .openapi(update, async (c) => c.json(await updateWebhook(svc(c), c.req.valid("param").id, c.req.valid("json")), 200))
  .openapi(remove, async (c) => {
    await deleteWebhook(svc(c), c.req.valid("param").id);
    return c.body(null, 204);
  })
  .openapi(rotate, async (c) => c.json(await rotateWebhookSecret(svc(c), c.req.valid("param").id), 200))
  .openapi(deliveries, async (c) =>
    c.json(await listDeliveries(svc(c), c.req.valid("param").id, c.req.valid("query")), 200),
  )
  .openapi(test, async (c) => c.json(await sendTestWebhook(svc(c), c.req.valid("param").id), 200))
  .openapi(redeliverRoute, async (c) => {
    const p = c.req.valid("param");
    return c.json(await redeliver(svc(c), p.id, p.deliveryId), 202);
  });
