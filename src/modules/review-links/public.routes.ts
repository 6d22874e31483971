import { createRoute, z } from "@hono/zod-openapi";
import { ApiError } from "../../lib/errors";
import { createRouter, errors, type Router } from "../../lib/openapi";
import { QR_RESPONSE, qrResponse } from "../../lib/qr";
import { inactiveLinkPage, PAGE_HEADERS, wantsHtml } from "../links/page";
import { publicCtx } from "../links/routes";
import { hostBrand } from "../white-label/resolve";
import { openReviewLink, reviewLinkQrTarget } from "./public";
import { OpenQuery, QrQuery, SlugParam } from "./schemas";

const tags = ["Review links"];

const open = createRoute({
  method: "get",
  path: "/l/{slug}",
  tags,
  security: [],
  summary: "Review link: 302 to a review site drawn by the link's weights",
  operationId: "followReviewLink",
  description:
    "Public. Each open is sent to one of the location's review pages, drawn at random by the tenant's weights (never by anything about the customer), " +
    "and counted (source qr with `src=qr`, else link). Unknown, deactivated or dead link: 404 (an HTML page for browsers, details.reason in JSON).",
  request: { params: SlugParam, query: OpenQuery },
  responses: {
    400: errors[400],
    302: {
      description: "To the chosen review site",
      headers: z.object({ location: z.string().openapi({ format: "uri" }) }),
    },
    404: {
      description: "No longer active: an HTML page for browsers, else ErrorResponse",
      content: { ...errors[404].content, "text/html": { schema: z.string() } },
    },
  },
});

const qr = createRoute({
  method: "get",
  path: "/l/{slug}/qr",
  tags,
  security: [],
  summary: "Review link: its QR code (SVG or PNG) for printing",
  operationId: "getReviewLinkQrCode",
  description:
    "Public. Encodes `{PUBLIC_BASE_URL}/l/{slug}?src=qr`, so scans are counted apart from link opens. Unknown or deactivated link: 404.",
  request: { params: SlugParam, query: QrQuery },
  responses: { 200: QR_RESPONSE, 400: errors[400], 404: errors[404] },
});

export const publicReviewLinkRoutes: Router = createRouter()
  .openapi(open, async (c) => {
    try {
      const url = await openReviewLink(
        publicCtx(c),
        c.req.valid("param").slug,
        c.req.valid("query").src === "qr" ? "qr" : "link",
      );
      c.header("cache-control", "no-store");
      c.header("referrer-policy", "no-referrer");
      return c.redirect(url, 302);
    } catch (err) {
      if (err instanceof ApiError && err.code === "NOT_FOUND" && wantsHtml(c.req.header("accept")))
        return c.body(inactiveLinkPage(await hostBrand(c.var.control, c.var.customHost)), 404, PAGE_HEADERS) as never;
      throw err;
    }
  })
  .openapi(qr, async (c) => {
    const { format, size } = c.req.valid("query");
    return qrResponse(await reviewLinkQrTarget(publicCtx(c), c.req.valid("param").slug), format, size) as never;
  });
