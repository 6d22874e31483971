import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import { createRouter, errors, json, type Router, tenantMovingResponse } from "../../lib/openapi";
import { requestMeta } from "../../middleware/service-context";
import { PAGE_HEADERS, wantsJson } from "../links/page";
import { TokenParam } from "../links/schemas";
import { type AlertUnsubscribeView, alertUnsubscribe, getAlertUnsubscribe } from "./unsubscribe.service";
import { alertUnsubscribePage } from "./unsubscribe-page";

const tags = ["Alerts"];

const StateSchema = z
  .object({
    kind: z.enum(["instant", "digest"]),
    locationName: z.string().nullable(),
    address: z.string().nullable().openapi({ description: "the recipient's address, masked" }),
    subscribed: z.boolean(),
    unsubscribedAt: z.string().nullable().openapi({ format: "date-time" }),
  })
  .openapi("AlertUnsubscribeState");

const FormBody = z
  .object({ "List-Unsubscribe": z.string().optional().openapi({ example: "One-Click" }) })
  .openapi("AlertUnsubscribeForm");
const stateResponse = (description: string) => ({
  description,
  content: { ...json(StateSchema).content, "text/html": { schema: z.string() } },
});

const show = createRoute({
  method: "get",
  path: "/alerts/unsubscribe/{token}",
  tags,
  summary: "Alert email unsubscribe page",
  security: [],
  operationId: "getAlertUnsubscribePage",
  description:
    "Public. An HTML page by default, the state as JSON when Accept asks for application/json. Unknown or forged token, or a deleted subscription: 404.",
  request: { params: TokenParam },
  responses: { 200: stateResponse("The page, or the state"), 404: errors[404] },
});

const confirm = createRoute({
  method: "post",
  path: "/alerts/unsubscribe/{token}",
  tags,
  summary: "Stop the alert emails the link came with (also the RFC 8058 one-click target)",
  security: [],
  operationId: "unsubscribeFromAlerts",
  description:
    "Public: any POST unsubscribes (form-encoded or multipart, List-Unsubscribe=One-Click). A digest link stops the digest; an alert link stops instant alert emails. Repeating it changes nothing.",
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
    503: tenantMovingResponse,
  },
});

function answer(c: Context<AppEnv>, v: AlertUnsubscribeView) {
  if (!wantsJson(c.req.header("accept"))) return c.body(alertUnsubscribePage(v), 200, PAGE_HEADERS);
  c.header("cache-control", "no-store");
  return c.json(v, 200);
}

export const alertUnsubscribeRoutes: Router = createRouter()
  .openapi(
    show,
    async (c) => answer(c, await getAlertUnsubscribe(c.var.hostGuard, c.env, c.req.valid("param").token)) as never,
  )
  .openapi(
    confirm,
    async (c) =>
      answer(c, await alertUnsubscribe(c.var.hostGuard, c.env, c.req.valid("param").token, requestMeta(c))) as never,
  );
