import { z } from "@hono/zod-openapi";
import type { reviewLinks } from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { YELP_SOLICITING_FORBIDDEN } from "../../lib/review-solicitation";

const Weight = z.number().int().min(0).max(1000);

export const SiteWeightsSchema = z
  .object({ google: Weight.optional(), yelp: Weight.optional(), facebook: Weight.optional() })
  .strict()
  .refine((w) => Object.values(w).some((v) => (v ?? 0) > 0), { message: "At least one site needs a weight above 0" })
  .refine((w) => !w.yelp, { message: YELP_SOLICITING_FORBIDDEN, path: ["yelp"] })
  .openapi("SiteWeights", {
    description:
      "Relative share of customers sent to each site (e.g. {google: 70, facebook: 30}); 0 or absent = never. yelp above 0 is refused (400): Yelp forbids asking for reviews",
    example: { google: 70, facebook: 30 },
  });

export const ReviewLinkSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    locationId: z.string(),
    name: z.string(),
    slug: z.string().openapi({ description: "The public key in the link's URL" }),
    weights: z.object({
      google: z.number().int().optional(),
      yelp: z.number().int().optional(),
      facebook: z.number().int().optional(),
    }),
    isActive: z.boolean(),
    url: z.string().openapi({
      format: "uri",
      description: "The public short link: each open redirects to one site drawn by the weights",
    }),
    qrSvgUrl: z
      .string()
      .openapi({ format: "uri", description: "QR code (SVG) encoding url?src=qr: scans are counted with source qr" }),
    qrPngUrl: z.string().openapi({ format: "uri", description: "The same QR code as a PNG" }),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("ReviewLink");

const Name = z.string().trim().min(1).max(120);

export const CreateReviewLinkBody = z
  .object({
    locationId: z.string().min(1).max(64),
    name: Name.optional().openapi({ description: "default: Review link" }),
    weights: SiteWeightsSchema,
  })
  .openapi("CreateReviewLinkRequest");

export const UpdateReviewLinkBody = z
  .object({ name: Name.optional(), weights: SiteWeightsSchema.optional(), isActive: z.boolean().optional() })
  .openapi("UpdateReviewLinkRequest");

export const ReviewLinkListQuery = PageQuerySchema.extend({ locationId: z.string().max(64).optional() });

export const ReviewLinkStatsQuery = z.object({
  from: z.iso.datetime({ offset: true }).optional().openapi({ description: "count clicks at or after this time" }),
  to: z.iso.datetime({ offset: true }).optional().openapi({ description: "count clicks before this time" }),
});

const Counts = z.record(z.string(), z.number().int());

export const ReviewLinkStatsSchema = z
  .object({
    reviewLinkId: z.string(),
    total: z.number().int().openapi({
      description:
        "counted opens: one per visitor (IP address and browser) per visitWindowMinutes; HEAD requests, prefetches and link-preview bots are not counted",
    }),
    unit: z.literal("visit").openapi({ description: "what the counts count: visits (see total), not raw requests" }),
    visitWindowMinutes: z
      .number()
      .int()
      .openapi({ description: "a visitor's repeated opens within one window of this length count once", example: 30 }),
    bySource: Counts.openapi({ description: "link (the URL opened) and qr (the printed QR code scanned)" }),
    bySite: Counts.openapi({ description: "where the opens were sent" }),
  })
  .openapi("ReviewLinkStats");

export const LocationReviewUrlsSchema = z
  .object({
    locationId: z.string(),
    googlePlaceId: z.string().nullable(),
    google: z.string().nullable().openapi({
      description: "https://search.google.com/local/writereview?placeid={googlePlaceId}; else the Google Business URL",
    }),
    yelp: z.string().nullable(),
    facebook: z.string().nullable(),
  })
  .openapi("LocationReviewUrls");

export const SlugParam = z.object({ slug: z.string().min(1).max(64) });
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
export const OpenQuery = z.object({
  src: z.string().max(16).optional().openapi({ description: "qr: the open came from the printed QR code" }),
});

export type CreateReviewLinkInput = z.infer<typeof CreateReviewLinkBody>;
export type UpdateReviewLinkInput = z.infer<typeof UpdateReviewLinkBody>;
export type ReviewLinkRow = typeof reviewLinks.$inferSelect;

const base = (publicBaseUrl: string) => publicBaseUrl.replace(/\/+$/, "");
export const publicLinkUrl = (publicBaseUrl: string, slug: string) =>
  `${base(publicBaseUrl)}/l/${encodeURIComponent(slug)}`;
/** What the QR code encodes: the short link marked as a scan. */
export const qrTargetUrl = (publicBaseUrl: string, slug: string) => `${publicLinkUrl(publicBaseUrl, slug)}?src=qr`;

export const toReviewLink = (r: ReviewLinkRow, publicBaseUrl: string) => ({
  id: r.id,
  tenantId: r.tenantId,
  locationId: r.locationId,
  name: r.name,
  slug: r.slug,
  weights: r.weights,
  isActive: r.isActive,
  url: publicLinkUrl(publicBaseUrl, r.slug),
  qrSvgUrl: `${publicLinkUrl(publicBaseUrl, r.slug)}/qr?format=svg`,
  qrPngUrl: `${publicLinkUrl(publicBaseUrl, r.slug)}/qr?format=png`,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});
