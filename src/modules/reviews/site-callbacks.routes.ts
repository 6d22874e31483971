import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, errors, json, type Router } from "../../lib/openapi";
import { receiveTrustpilotWebhook } from "./site-callbacks";

const TrustpilotWebhookBody = z
  .object({
    events: z
      .array(
        z.object({
          eventName: z.string().max(100).openapi({ example: "service-review-created" }),
          version: z.union([z.string(), z.number()]).optional(),
          eventData: z.record(z.string(), z.unknown()).optional(),
        }),
      )
      .max(500),
  })
  .openapi("TrustpilotWebhookRequest");

const ResultSchema = z
  .object({ received: z.number().int(), created: z.number().int(), updated: z.number().int() })
  .openapi("ReviewSiteWebhookResult");

const route = createRoute({
  method: "post",
  path: "/webhooks/review-sites/trustpilot/{integrationId}",
  tags: ["Provider callbacks"],
  operationId: "receiveTrustpilotWebhook",
  security: [],
  summary: "New and updated Trustpilot service reviews, pushed by Trustpilot instead of polled",
  description:
    "Public. Trustpilot does not sign webhooks: the subscription URL carries the integration's credentials.webhookSecret, as HTTP Basic " +
    "credentials (https://trustpilot:{secret}@host/...) or ?secret=. Wrong or missing: 401 and nothing changes. service-review-created and " +
    "-updated upsert the review (a redelivery changes nothing); other events are counted and ignored. While webhooks arrive, polling " +
    "the integration drops to a daily reconciliation.",
  request: {
    params: z.object({ integrationId: z.string().min(1).max(64) }),
    query: z.object({ tenant: z.string().min(1).max(64), secret: z.string().max(200).optional() }),
    body: { required: true, content: { "application/json": { schema: TrustpilotWebhookBody } } },
  },
  responses: { 200: json(ResultSchema, "What was stored"), 400: errors[400], 401: errors[401], 404: errors[404] },
});

export const reviewSiteCallbackRoutes: Router = createRouter().openapi(route, async (c) =>
  c.json(
    await receiveTrustpilotWebhook(
      c.env,
      c.req.valid("query").tenant,
      c.req.valid("param").integrationId,
      c.req.raw,
      c.req.valid("json"),
    ),
    200,
  ),
);
