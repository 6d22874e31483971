import { z } from "@hono/zod-openapi";
import type { webhookDeliveries, webhookSubscriptions } from "../../db/schema";
import { WEBHOOK_DELIVERY_STATUSES } from "../../db/schema";
import { EVENT_TYPES } from "../../lib/events";
import { DateTime, PageQuerySchema } from "../../lib/openapi";

export const WebhookSubscriptionSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    url: z.string().openapi({ format: "uri", example: "https://hooks.example.com/reputation" }),
    description: z.string().nullable(),
    events: z.array(z.string()).openapi({ example: ["review.created", "review.negative"] }),
    isActive: z.boolean(),
    failingSince: DateTime.nullable().openapi({ description: "first failed attempt since the last success" }),
    consecutiveFailures: z.number().int(),
    disabledAt: DateTime.nullable(),
    disabledReason: z
      .string()
      .nullable()
      .openapi({ description: "set when the service disabled the endpoint after sustained failure" }),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("WebhookSubscription");

export const WebhookWithSecretSchema = WebhookSubscriptionSchema.extend({
  secret: z.string().openapi({
    description: "whsec_ signing secret; shown only in this response",
    example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  }),
}).openapi("WebhookSubscriptionWithSecret");

export const WebhookSecretSchema = z.object({ id: z.string(), secret: z.string() }).openapi("WebhookSecret");

const Events = z
  .array(z.enum([...EVENT_TYPES, "*"]))
  .min(1)
  .max(EVENT_TYPES.length)
  .refine((e) => !e.includes("*") || e.length === 1, { message: '"*" subscribes to every event and must be alone' })
  .transform((e) => [...new Set(e)])
  .openapi({ description: 'Event types from the catalogue (docs/events.md), or ["*"] for all' });

export const CreateWebhookBody = z
  .object({
    url: z.string().trim().min(1).max(2048),
    events: Events,
    description: z.string().trim().max(500).nullable().optional(),
    isActive: z.boolean().optional(),
  })
  .strict()
  .openapi("CreateWebhookRequest");

export const UpdateWebhookBody = z
  .object({
    url: z.string().trim().min(1).max(2048),
    events: Events,
    description: z.string().trim().max(500).nullable(),
    isActive: z
      .boolean()
      .openapi({ description: "true re-enables an endpoint the service disabled and resets its failure count" }),
  })
  .partial()
  .strict()
  .openapi("UpdateWebhookRequest");

export const WebhookDeliverySchema = z
  .object({
    id: z.string(),
    subscriptionId: z.string(),
    messageId: z.string().openapi({ description: "the webhook-id header; the same on retries and redeliveries" }),
    eventId: z.string(),
    eventType: z.string(),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES),
    attempts: z.number().int(),
    responseStatus: z.number().int().nullable(),
    responseBody: z.string().nullable().openapi({ description: "first 1,000 characters of the last response" }),
    latencyMs: z.number().int().nullable(),
    error: z.string().nullable(),
    lastAttemptAt: DateTime.nullable(),
    nextAttemptAt: DateTime.nullable(),
    redeliveryOf: z.string().nullable(),
    payload: z.record(z.string(), z.unknown()),
    createdAt: DateTime,
  })
  .openapi("WebhookDelivery");

export const DeliveryParams = z.object({ id: z.string().min(1).max(64), deliveryId: z.string().min(1).max(64) });

export const DeliveryListQuery = PageQuerySchema.extend({
  status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional(),
});

export const WebhookListQuery = PageQuerySchema;

export type CreateWebhookInput = z.infer<typeof CreateWebhookBody>;
export type UpdateWebhookInput = z.infer<typeof UpdateWebhookBody>;
export type WebhookRow = typeof webhookSubscriptions.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export const toWebhook = (r: WebhookRow) => ({
  id: r.id,
  tenantId: r.tenantId,
  url: r.url,
  description: r.description,
  events: r.events,
  isActive: r.isActive,
  failingSince: r.failingSince,
  consecutiveFailures: r.consecutiveFailures,
  disabledAt: r.disabledAt,
  disabledReason: r.disabledReason,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export const toDelivery = (r: DeliveryRow) => ({
  id: r.id,
  subscriptionId: r.subscriptionId,
  messageId: r.messageId,
  eventId: r.eventId,
  eventType: r.eventType,
  status: r.status,
  attempts: r.attempts,
  responseStatus: r.responseStatus,
  responseBody: r.responseBody,
  latencyMs: r.latencyMs,
  error: r.error,
  lastAttemptAt: r.lastAttemptAt,
  nextAttemptAt: r.nextAttemptAt,
  redeliveryOf: r.redeliveryOf,
  payload: JSON.parse(r.payload) as Record<string, unknown>,
  createdAt: r.createdAt,
});
