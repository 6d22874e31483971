import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import { ApiError } from "../../lib/errors";
import { createRouter, errors, json, type Router } from "../../lib/openapi";
import { QR_RESPONSE, qrResponse } from "../../lib/qr";
import { hostBrand } from "../white-label/resolve";
import { visitOf } from "./clicks";
import { inactiveLinkPage, PAGE_HEADERS, wantsHtml } from "./page";
import { QrQuery, RedirectQuery, ShortLinkSchema, SuccessSchema, TokenParam } from "./schemas";
import { type PublicContext, recordClick, resolveShortLink, shortLinkQrTarget, shortLinkView } from "./service";

const tags = ["Links"];

export const publicCtx = (c: Context<AppEnv>): PublicContext => ({
  control: c.get("control"),
  env: c.env,
  defer: (work) => c.executionCtx.waitUntil(work),
  admit: c.get("hostGuard"),
  visit: visitOf(c.req),
});

const getLink = createRoute({
  method: "get",
  path: "/v1/r/{token}",
  operationId: "followShortLink",
  tags,
  summary: "Short link: destination data, or a 302 to it",
  description:
    "Public (no authentication). Without `redirect`, the destination data as JSON (no click recorded). With `redirect=1`, " +
    "a 302 to the destination and a click recorded off the request path (the first click sets the solicitation's clickedAt). " +
    "The token is verified by its MAC and the location's data comes from a cache, so the answer never waits on D1. " +
    "Unknown or forged token: 404. A link whose location was deleted or deactivated: 404 with details.reason (an HTML page for browsers). " +
    "`src=qr` (what the link's QR code encodes) records the click with source qr. " +
    "A solicitation that was never sent (BLOCKED) still redirects but records no click.",
  security: [],
  request: { params: TokenParam, query: RedirectQuery },
  responses: {
    200: json(ShortLinkSchema, "Destination data"),
    302: { description: "To the destination", headers: z.object({ location: z.string().openapi({ format: "uri" }) }) },
    400: errors[400],
    404: errors[404],
  },
});

const click = createRoute({
  method: "patch",
  path: "/v1/r/{token}/click",
  operationId: "recordShortLinkClick",
  tags,
  summary: "Short link: record a click",
  description:
    "Public. Records a click as the redirect does (for a landing page that fetched the JSON; none for a solicitation that was never sent, BLOCKED). Unknown or forged token: 404.",
  security: [],
  request: { params: TokenParam },
  responses: { 200: json(SuccessSchema, "Recorded"), 404: errors[404] },
});

const qr = createRoute({
  method: "get",
  path: "/v1/r/{token}/qr",
  operationId: "getShortLinkQrCode",
  tags,
  summary: "Short link: its QR code (SVG or PNG)",
  description:
    "Public. A QR code of `{PUBLIC_BASE_URL}/v1/r/{token}?redirect=1&src=qr`: a scan redirects like the link and is counted as a click with source qr. " +
    "Unknown or forged token: 404.",
  security: [],
  request: { params: TokenParam, query: QrQuery },
  responses: { 200: QR_RESPONSE, 400: errors[400], 404: errors[404] },
});

export const linkRoutes: Router = createRouter()
  .openapi(getLink, async (c) => {
    const { token } = c.req.valid("param");
    const { redirect } = c.req.valid("query");
    const isRedirect = redirect === "1" || redirect === "true";
    const ctx = publicCtx(c);
    try {
      const link = await resolveShortLink(ctx, token);
      if (isRedirect) {
        await recordClick(ctx, link, c.req.valid("query").src === "qr" ? "qr" : "redirect");
        c.header("cache-control", "no-store");
        c.header("referrer-policy", "no-referrer");
        return c.redirect(link.destination.url, 302);
      }
      return c.json(await shortLinkView(ctx, token, link), 200);
    } catch (err) {
      if (err instanceof ApiError && err.code === "NOT_FOUND" && isRedirect && wantsHtml(c.req.header("accept"))) {
        return c.body(inactiveLinkPage(await hostBrand(c.var.control, c.var.customHost)), 404, PAGE_HEADERS);
      }
      throw err;
    }
  })
  .openapi(qr, async (c) => {
    const { format, size } = c.req.valid("query");
    return qrResponse(await shortLinkQrTarget(publicCtx(c), c.req.valid("param").token), format, size) as never;
  })
  .openapi(click, async (c) => {
    const ctx = publicCtx(c);
    await recordClick(ctx, await resolveShortLink(ctx, c.req.valid("param").token), "api");
    return c.json({ success: true }, 200);
  });
