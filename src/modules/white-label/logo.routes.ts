import { createRoute, z } from "@hono/zod-openapi";
import { notFound } from "../../lib/errors";
import { createRouter, errors, type Router } from "../../lib/openapi";
import { logoFile } from "./logos";

/*
 * A white-label logo, served from our own origin (docs/white-label.md "Logos"): public, like the pages that
 * show it, through the custom-host guard (a tenant's logo on the hosts that serve the tenant, an agency's on
 * the agency's and its tenants' hosts). Its address changes with every upload, so browsers keep it a year.
 */
const LogoParam = z.object({
  file: z
    .string()
    .regex(/^[a-z0-9]{1,64}\.(png|jpg|webp)$/, "a logo's file name: {id}.png, .jpg or .webp")
    .openapi({ param: { name: "file", in: "path" }, example: "k3j9x2.png" }),
});

const getLogo = createRoute({
  method: "get",
  path: "/brand-logos/{file}",
  tags: ["White label"],
  security: [],
  summary: "A white-label logo (public)",
  operationId: "getBrandLogo",
  description: "The image a brand's logoUrl names: PNG, JPEG or WebP, immutable (a new upload gets a new address).",
  request: { params: LogoParam },
  responses: {
    200: {
      description: "The image",
      content: {
        "image/png": { schema: z.string().openapi({ format: "binary" }) },
        "image/jpeg": { schema: z.string().openapi({ format: "binary" }) },
        "image/webp": { schema: z.string().openapi({ format: "binary" }) },
      },
    },
    400: errors[400],
    404: errors[404],
  },
});

export const brandLogoRoutes: Router = createRouter().openapi(getLogo, async (c) => {
  const logo = await logoFile(c.var.control, c.req.valid("param").file);
  if (!logo) throw notFound("Logo");
  if (logo.scope === "tenant") await c.var.hostGuard(logo.scopeId);
  else await c.var.agencyHostGuard(logo.agencyId);
  return new Response(logo.bytes, {
    headers: {
      "content-type": logo.contentType,
      "content-length": String(logo.size),
      "cache-control": "public, max-age=31536000, immutable",
      "x-content-type-options": "nosniff",
      // an image, not a document: nothing in it may run or be framed
      "content-security-policy": "default-src 'none'; sandbox",
      "cross-origin-resource-policy": "cross-origin",
    },
  }) as never;
});
