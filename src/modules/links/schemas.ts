import { z } from "@hono/zod-openapi";

export const TokenParam = z.object({
  token: z.string().min(1).max(512).openapi({ description: "The signed token from the message's link" }),
});

const Site = z.enum(["google", "yelp", "facebook"]);

export const ShortLinkSchema = z
  .object({
    solicitationId: z.string(),
    destination: z.enum(["google", "yelp", "facebook", "survey", "feedback", "kiosk", "auto", "custom"]).openapi({
      description:
        "The campaign's reviewDestination when the link was minted, or custom (the solicitation's destinationUrl)",
    }),
    resolvedDestination: z.enum(["google", "yelp", "facebook", "feedback", "custom"]).openapi({
      description:
        "Where the link goes now: a review site, the hosted feedback page (also the fallback when the location lacks that site), or custom",
    }),
    url: z.string().openapi({ format: "uri", description: "The redirect target" }),
    location: z.object({ id: z.string(), name: z.string() }),
    brand: z.object({ name: z.string(), logoUrl: z.string().nullable() }),
    reviewLinks: z
      .record(Site, z.string())
      .openapi({ description: "Every public review page of the location, by site (never gated by rating)" }),
    feedbackUrl: z.string().openapi({ format: "uri" }),
  })
  .openapi("ShortLink");

export const RedirectQuery = z.object({
  redirect: z
    .enum(["1", "0", "true", "false"])
    .optional()
    .openapi({ description: "1: answer 302 to the destination (and record a click) instead of JSON" }),
  src: z.string().max(16).optional().openapi({
    description:
      "qr: the link was opened by scanning its QR code (the click is recorded with source qr); other values are ignored",
  }),
});

export const QrQuery = z.object({
  format: z.enum(["svg", "png"]).default("svg"),
  size: z.coerce
    .number()
    .int()
    .min(64)
    .max(2048)
    .default(512)
    .openapi({ description: "PNG width in pixels (SVG scales freely)" }),
});

export const SuccessSchema = z.object({ success: z.boolean() }).openapi("Success");
