import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import { ApiError, notFound } from "../../lib/errors";
import { createRouter, errors, json, type Router } from "../../lib/openapi";
import { messagePage, wantsHtml } from "../links/page";
import { hostBrand } from "../white-label/resolve";
import { cachedWidget, type RenderedWidget } from "./cache";
import { KeyParam, PublicWidgetSchema } from "./schemas";

const tags = ["Widgets"];

/** Public and identical for everyone: any site may embed it; browsers keep it a minute. */
const SHARED = {
  "cache-control": "public, max-age=60",
  "access-control-allow-origin": "*",
  "cross-origin-resource-policy": "cross-origin",
  "x-content-type-options": "nosniff",
};
const JSON_HEADERS = { ...SHARED, "content-type": "application/json; charset=utf-8" };
const SCRIPT_HEADERS = { ...SHARED, "content-type": "text/javascript; charset=utf-8" };
const PAGE_HEADERS = {
  ...SHARED,
  "content-type": "text/html; charset=utf-8",
  "referrer-policy": "no-referrer",
  // no script at all; any site may frame it (that is its purpose)
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; frame-ancestors *; base-uri 'none'; form-action 'none'",
};

const widgetOf = (c: Context<AppEnv>, key: string) =>
  cachedWidget({ env: c.env, publicBaseUrl: c.env.PUBLIC_BASE_URL, defer: (p) => c.executionCtx.waitUntil(p) }, key);

/** The widget, or 404: unknown, deactivated, or another tenant's on this custom host. */
async function found(c: Context<AppEnv>, key: string): Promise<RenderedWidget> {
  const w = await widgetOf(c, key);
  if (!w) throw notFound("Widget");
  await c.get("hostGuard")(w.tenantId);
  return w;
}

const data = createRoute({
  method: "get",
  path: "/w/{key}/reviews",
  tags,
  security: [],
  summary: "A review widget's reviews as JSON (public)",
  operationId: "listWidgetReviews",
  description:
    "The reviews the tenant chose (its filters are in `filters` and `footer`), the honest average over all reviews of the widget's sites, and JSON-LD for first-party reviews. Cached; purged when a review arrives. Unknown or deactivated widget: 404.",
  request: { params: KeyParam },
  responses: { 200: json(PublicWidgetSchema), 400: errors[400], 404: errors[404] },
});

const script = createRoute({
  method: "get",
  path: "/w/{key}/embed.js",
  tags,
  security: [],
  summary: "A review widget as an embeddable script (public)",
  operationId: "getWidgetEmbedScript",
  description:
    'Renders into the shadow root of `<div data-reputation-widget="{key}">` (or of a div it inserts before itself). Defines one global, `ReputationWidgets`.',
  request: { params: KeyParam },
  responses: {
    200: { description: "JavaScript", content: { "text/javascript": { schema: z.string() } } },
    400: errors[400],
    404: errors[404],
  },
});

const page = createRoute({
  method: "get",
  path: "/w/{key}",
  tags,
  security: [],
  summary: "A review widget as a page for an iframe (public, no JavaScript)",
  operationId: "getWidgetPage",
  request: { params: KeyParam },
  responses: {
    200: { description: "HTML", content: { "text/html": { schema: z.string() } } },
    400: errors[400],
    404: {
      description: "Unknown or deactivated widget: an HTML page for browsers, else ErrorResponse",
      content: { ...errors[404].content, "text/html": { schema: z.string() } },
    },
  },
});

export const publicWidgetRoutes: Router = createRouter()
  .openapi(
    data,
    async (c) => new Response((await found(c, c.req.valid("param").key)).json, { headers: JSON_HEADERS }) as never,
  )
  .openapi(
    script,
    async (c) => new Response((await found(c, c.req.valid("param").key)).script, { headers: SCRIPT_HEADERS }) as never,
  )
  .openapi(page, async (c) => {
    try {
      return new Response((await found(c, c.req.valid("param").key)).page, { headers: PAGE_HEADERS }) as never;
    } catch (err) {
      if (!(err instanceof ApiError && err.code === "NOT_FOUND" && wantsHtml(c.req.header("accept")))) throw err;
      const body = messagePage({
        title: "Widget not found",
        heading: "This review widget is not available",
        whiteLabel: await hostBrand(c.var.control, c.var.customHost),
      });
      return new Response(body, { status: 404, headers: { ...PAGE_HEADERS, "cache-control": "no-store" } }) as never;
    }
  });
