import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import { createRouter, errors, json, type Router, tenantMovingResponse } from "../../lib/openapi";
import { requestMeta } from "../../middleware/service-context";
import { EffectiveBrandSchema } from "../white-label/schemas";
import { PAGE_HEADERS, wantsJson } from "./page";
import { publicCtx } from "./routes";
import { TokenParam } from "./schemas";
import { getUnsubscribe, resubscribe, type UnsubscribeView, unsubscribe } from "./unsubscribe.service";
import { type UnsubscribeOutcome, unsubscribePage } from "./unsubscribe-page";

const tags = ["Links"];

const UnsubscribeSchema = z
  .object({
    channel: z.enum(["email", "sms", "whatsapp"]),
    address: z.string().nullable().openapi({ description: "The address the link was sent to, masked" }),
    brand: z.object({ name: z.string(), logoUrl: z.string().nullable() }),
    locale: z.string().nullable(),
    whiteLabel: EffectiveBrandSchema,
    subscribed: z.boolean(),
    unsubscribedAt: z.string().nullable().openapi({ format: "date-time" }),
  })
  .openapi("UnsubscribeState");

const FormBody = z
  .object({
    "List-Unsubscribe": z.string().optional().openapi({ example: "One-Click" }),
    _method: z
      .enum(["DELETE"])
      .optional()
      .openapi({ description: "DELETE: resubscribe (the page's form; HTML forms cannot send DELETE)" }),
  })
  .openapi("UnsubscribeForm");

const html = { "text/html": { schema: z.string() } };
const stateResponse = (description: string) => ({
  description,
  content: { ...json(UnsubscribeSchema).content, ...html },
});

const show = createRoute({
  method: "get",
  path: "/unsubscribe/{token}",
  operationId: "getUnsubscribePage",
  tags,
  summary: "Unsubscribe page",
  description:
    "Public. An HTML confirmation page by default, or the state as JSON when Accept asks for application/json (and not text/html). Unknown or forged token, or an erased contact: 404.",
  security: [],
  request: { params: TokenParam },
  responses: { 200: stateResponse("The page, or the state"), 404: errors[404] },
});

const confirm = createRoute({
  method: "post",
  path: "/unsubscribe/{token}",
  tags,
  summary: "Confirm unsubscribe (also the RFC 8058 one-click target)",
  operationId: "unsubscribe",
  description:
    "Public, no cookies or script needed: any POST unsubscribes, including a mail provider's `List-Unsubscribe=One-Click` (form-encoded or multipart). " +
    "Revokes the channel's consent (source unsubscribe), stops the contact's drip sequences, audits and emits contact.suppressed. " +
    "Repeating it changes nothing. A form field `_method=DELETE` resubscribes instead (the page's button).",
  security: [],
  request: {
    params: TokenParam,
    body: {
      required: false,
      content: {
        "application/x-www-form-urlencoded": { schema: FormBody },
        "multipart/form-data": { schema: FormBody },
      },
    },
  },
  responses: {
    200: stateResponse("Unsubscribed (HTML for browsers, JSON otherwise)"),
    404: errors[404],
    409: errors[409],
    503: tenantMovingResponse,
  },
});

const undo = createRoute({
  method: "delete",
  path: "/unsubscribe/{token}",
  operationId: "resubscribe",
  tags,
  summary: "Resubscribe",
  description:
    "Public. Grants back the channel an unsubscribe link revoked (consent granted, source resubscribe). An opt-out made another way (STOP, bounce, staff) is 409.",
  security: [],
  request: { params: TokenParam },
  responses: { 200: stateResponse("Subscribed again"), 404: errors[404], 409: errors[409], 503: tenantMovingResponse },
});

function answer(c: Context<AppEnv>, v: UnsubscribeView, outcome: UnsubscribeOutcome) {
  if (!wantsJson(c.req.header("accept"))) return c.body(unsubscribePage(v, outcome), 200, PAGE_HEADERS);
  c.header("cache-control", "no-store");
  return c.json(v, 200);
}

export const unsubscribeRoutes: Router = createRouter()
  .openapi(show, async (c) => answer(c, await getUnsubscribe(publicCtx(c), c.req.valid("param").token), "ask") as never)
  .openapi(confirm, async (c) => {
    const { token } = c.req.valid("param");
    const form = c.req.valid("form") as z.infer<typeof FormBody> | undefined;
    if (form?._method === "DELETE")
      return answer(c, await resubscribe(publicCtx(c), token, requestMeta(c)), "resubscribed") as never;
    return answer(c, await unsubscribe(publicCtx(c), token, requestMeta(c)), "unsubscribed") as never;
  })
  .openapi(
    undo,
    async (c) =>
      answer(c, await resubscribe(publicCtx(c), c.req.valid("param").token, requestMeta(c)), "resubscribed") as never,
  );
