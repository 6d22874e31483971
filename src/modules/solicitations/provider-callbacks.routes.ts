import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import { ApiError, notFound } from "../../lib/errors";
import { createRouter, errors, json, type Router } from "../../lib/openapi";
import { handleProviderCallback } from "../../providers/messaging/callbacks/handle";
import { loadWebhookKeys, WEBHOOK_PROVIDERS, type WebhookProvider } from "../../providers/messaging/callbacks/keys";
import { applyTemplateUpdates } from "../messaging-settings/whatsapp-templates";
import { applyProviderCallback } from "./provider-callbacks";

const tags = ["Provider callbacks"];
const params = z.object({
  provider: z
    .string()
    .max(32)
    .openapi({ description: WEBHOOK_PROVIDERS.join(", ") }),
});
const query = z.object({
  tenant: z
    .string()
    .max(64)
    .optional()
    .openapi({ description: "The tenant whose provider secrets sign this webhook (omit for the platform's)" }),
});

const ResultSchema = z
  .object({
    received: z.number().int(),
    applied: z.number().int(),
    consentRevoked: z.number().int(),
    templatesUpdated: z.number().int().optional().openapi({
      description: "Meta: WhatsApp template status/category changes applied (present when the body carried any)",
    }),
  })
  .openapi("ProviderWebhookResult");

/** Azure Event Grid's subscription handshake answer (ACS). */
const ValidationSchema = z.object({ validationResponse: z.string() }).openapi("EventGridValidationResponse");

const description =
  "Public; authenticated by the provider's signature (SendGrid ECDSA, SNS for SES, Event Grid secret for ACS, X-Twilio-Signature, " +
  "X-Hub-Signature-256 for Meta). Unsigned or badly signed: 401 and nothing changes. Handshakes (Event Grid validation, SNS " +
  "subscription) are answered as the provider expects. Reports move SENT -> DELIVERED / BOUNCED / FAILED (duplicates and " +
  "out-of-order reports change nothing); bounces and spam complaints suppress the contact; an inbound STOP revokes consent. " +
  "Meta's message_template_status_update and template_category_update update the WhatsApp template's state (newer events win; sends stop on a paused or rejected template).";

const post = createRoute({
  method: "post",
  path: "/webhooks/providers/{provider}",
  tags,
  summary: "Delivery reports and inbound messages from a messaging provider",
  description,
  operationId: "receiveProviderCallback",
  security: [],
  request: { params, query },
  responses: {
    200: json(z.union([ResultSchema, ValidationSchema]), "The reports applied, or the Event Grid validation answer"),
    400: errors[400],
    401: errors[401],
    404: errors[404],
  },
});

const get = createRoute({
  method: "get",
  path: "/webhooks/providers/{provider}",
  tags,
  summary: "Meta's webhook verification (hub.challenge echo)",
  operationId: "verifyProviderCallback",
  security: [],
  request: { params, query },
  responses: {
    200: { description: "The challenge, as text/plain", content: { "text/plain": { schema: z.string() } } },
    400: errors[400],
    401: errors[401],
    404: errors[404],
  },
});

const rejected = () => new ApiError("UNAUTHENTICATED", "Webhook signature missing or invalid");

const isProvider = (p: string): p is WebhookProvider => (WEBHOOK_PROVIDERS as readonly string[]).includes(p);

async function handle(c: Context<AppEnv>, name: string, tenant: string | undefined) {
  if (!isProvider(name)) throw notFound("Webhook provider");
  const provider = name;
  const keys = await loadWebhookKeys(c.env, provider, tenant ?? null);
  const outcome = await handleProviderCallback(provider, c.req.raw, keys);
  if (!outcome.verified) throw rejected();
  if (outcome.reply)
    return new Response(outcome.reply.body, {
      status: outcome.reply.status,
      headers: { "content-type": outcome.reply.contentType },
    });
  const defer = (p: Promise<unknown>) => c.executionCtx.waitUntil(p);
  const result = await applyProviderCallback(c.env, defer, outcome, tenant ?? null);
  if (!outcome.templates) return c.json(result, 200);
  // Meta's template webhooks (message_template_status_update, template_category_update) arrive on the same URL
  return c.json(
    { ...result, templatesUpdated: await applyTemplateUpdates(c.env, defer, tenant ?? null, outcome.templates) },
    200,
  );
}

export const providerCallbackRoutes: Router = createRouter()
  .openapi(post, async (c) => handle(c, c.req.valid("param").provider, c.req.valid("query").tenant) as never)
  .openapi(get, async (c) => handle(c, c.req.valid("param").provider, c.req.valid("query").tenant) as never);
