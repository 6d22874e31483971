import { errors, IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, noContent, type Operation } from "../../lib/operation";
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

// The outgoing webhooks in the catalogue (src/lib/operation.ts): REST only; webhooks are closed to API keys
// (no scope admits them: src/modules/identity/scopes.ts), reads for every role, changes for tenant_admin.

const tags = ["Webhooks"];

export const listWebhooksOperation = defineOperation({
  name: "webhook.list",
  operationId: "listWebhooks",
  method: "get",
  path: "/v1/webhooks",
  tags,
  summary: "List webhook subscriptions",
  request: { query: WebhookListQuery },
  output: paged(WebhookSubscriptionSchema).openapi("WebhookSubscriptionPage"),
  errors: stdErrors,
  scopes: [],
  access: "read",
  console: {},
  handler: (ctx, input) => listWebhooks(ctx, input),
});

export const createWebhookOperation = defineOperation({
  name: "webhook.create",
  operationId: "createWebhook",
  method: "post",
  path: "/v1/webhooks",
  tags,
  summary: "Subscribe an https endpoint to events (tenant_admin); the whsec_ secret is shown only here",
  request: { body: CreateWebhookBody },
  status: 201,
  output: WebhookWithSecretSchema,
  errors: { ...stdErrors, 409: errors[409] },
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  console: {},
  handler: (ctx, input) => createWebhook(ctx, input),
});

export const getWebhookOperation = defineOperation({
  name: "webhook.get",
  operationId: "getWebhook",
  method: "get",
  path: "/v1/webhooks/{id}",
  tags,
  summary: "Get a webhook subscription",
  request: { params: IdParam },
  output: WebhookSubscriptionSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: (ctx, input) => getWebhook(ctx, input.id),
});

export const updateWebhookOperation = defineOperation({
  name: "webhook.update",
  operationId: "updateWebhook",
  method: "patch",
  path: "/v1/webhooks/{id}",
  tags,
  summary: "Update a webhook subscription (tenant_admin)",
  request: { params: IdParam, body: UpdateWebhookBody },
  output: WebhookSubscriptionSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  console: {},
  handler: (ctx, { id, ...body }) => updateWebhook(ctx, id, body),
});

export const deleteWebhookOperation = defineOperation({
  name: "webhook.delete",
  operationId: "deleteWebhook",
  method: "delete",
  path: "/v1/webhooks/{id}",
  tags,
  summary: "Delete a webhook subscription and its delivery log (tenant_admin)",
  request: { params: IdParam },
  status: 204,
  statusText: "Deleted",
  output: noContent,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  destructive: true,
  console: {},
  handler: async (ctx, input) => {
    await deleteWebhook(ctx, input.id);
  },
});

export const rotateWebhookSecretOperation = defineOperation({
  name: "webhook.rotate-secret",
  operationId: "rotateWebhookSecret",
  method: "post",
  path: "/v1/webhooks/{id}/rotate-secret",
  tags,
  summary: "Replace the signing secret (tenant_admin); the new secret is shown only here",
  request: { params: IdParam },
  output: WebhookSecretSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  destructive: true,
  console: {},
  handler: (ctx, input) => rotateWebhookSecret(ctx, input.id),
});

export const listWebhookDeliveriesOperation = defineOperation({
  name: "webhook.deliveries",
  operationId: "listWebhookDeliveries",
  method: "get",
  path: "/v1/webhooks/{id}/deliveries",
  tags,
  summary: "Delivery log, newest first",
  request: { params: IdParam, query: DeliveryListQuery },
  output: paged(WebhookDeliverySchema).openapi("WebhookDeliveryPage"),
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: (ctx, { id, ...query }) => listDeliveries(ctx, id, query),
});

export const testWebhookOperation = defineOperation({
  name: "webhook.test",
  operationId: "testWebhook",
  method: "post",
  path: "/v1/webhooks/{id}/test",
  tags,
  summary: "Send a signed webhook.test payload now and return the recorded delivery (tenant_admin)",
  request: { params: IdParam },
  output: WebhookDeliverySchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  openWorld: true,
  console: {},
  handler: (ctx, input) => sendTestWebhook(ctx, input.id),
});

export const redeliverWebhookDeliveryOperation = defineOperation({
  name: "webhook.redeliver",
  operationId: "redeliverWebhookDelivery",
  method: "post",
  path: "/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver",
  tags,
  summary: "Queue a past delivery again, same webhook-id and body (tenant_admin); 409 when the endpoint is disabled",
  request: { params: DeliveryParams },
  status: 202,
  statusText: "Queued",
  output: WebhookDeliverySchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  openWorld: true,
  console: {},
  handler: (ctx, input) => redeliver(ctx, input.id, input.deliveryId),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  listWebhooksOperation,
  createWebhookOperation,
  getWebhookOperation,
  updateWebhookOperation,
  deleteWebhookOperation,
  rotateWebhookSecretOperation,
  listWebhookDeliveriesOperation,
  testWebhookOperation,
  redeliverWebhookDeliveryOperation,
];
