import { z } from "@hono/zod-openapi";
import { WIDGET_ORDERS, type widgets } from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { filterFooter } from "./footer";

const SiteType = z
  .string()
  .regex(/^[a-z][a-z0-9_]{1,39}$/, "Lower-case letters, digits and underscores, e.g. google or first_party");

const Filters = {
  minRating: z
    .number()
    .int()
    .min(1)
    .max(5)
    .openapi({ description: "show reviews rated at least this (default 1: every rating)" }),
  sites: z.array(SiteType).max(10).openapi({
    description: "review sites shown (google, yelp, facebook, first_party, ...); empty = every site (default)",
  }),
  count: z.number().int().min(1).max(50).openapi({ description: "how many reviews (default 5)" }),
  order: z
    .enum(WIDGET_ORDERS)
    .openapi({ description: "newest first (default) or best: highest rated first, newest among equals" }),
};

export const WidgetSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    locationId: z.string().nullable().openapi({ description: "null: reviews of every location of the tenant" }),
    name: z.string(),
    publicKey: z.string().openapi({ description: "The widget's id in its public URLs" }),
    ...Filters,
    isActive: z.boolean(),
    footer: z.string().openapi({
      description: "The disclosure printed under the reviews, e.g. Showing 5★ and 4★ Google reviews, newest first",
    }),
    embed: z.object({
      script: z.string().openapi({
        description: "HTML to paste into a page: a host element and the script that renders into its shadow root",
      }),
      iframe: z.string().openapi({ description: "HTML for pages that allow no third-party script" }),
      jsonUrl: z.string().openapi({ format: "uri" }),
      scriptUrl: z.string().openapi({ format: "uri" }),
      pageUrl: z.string().openapi({ format: "uri" }),
    }),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("Widget");

export const CreateWidgetBody = z
  .object({
    name: z.string().trim().min(1).max(120),
    locationId: z.string().min(1).max(64).nullable().optional(),
    minRating: Filters.minRating.optional(),
    sites: Filters.sites.optional(),
    count: Filters.count.optional(),
    order: Filters.order.optional(),
  })
  .openapi("CreateWidgetRequest");

export const UpdateWidgetBody = z
  .object({
    name: z.string().trim().min(1).max(120).optional(),
    locationId: z.string().min(1).max(64).nullable().optional(),
    minRating: Filters.minRating.optional(),
    sites: Filters.sites.optional(),
    count: Filters.count.optional(),
    order: Filters.order.optional(),
    isActive: z.boolean().optional(),
  })
  .openapi("UpdateWidgetRequest");

export const WidgetListQuery = PageQuerySchema.extend({ locationId: z.string().max(64).optional() });

const Review = z.object({
  id: z.string(),
  rating: z.number(),
  text: z.string().nullable(),
  authorName: z.string().nullable(),
  site: z.string(),
  isFirstParty: z.boolean(),
  publishedAt: z.string(),
  url: z.string().nullable(),
});

export const PublicWidgetSchema = z
  .object({
    key: z.string(),
    title: z.string(),
    filters: z.object(Filters),
    footer: z.string(),
    summary: z.object({
      averageRating: z
        .number()
        .nullable()
        .openapi({ description: "over every public rated review of the widget's place and sites, whatever minRating" }),
      reviewCount: z.number().int(),
    }),
    reviews: z.array(Review),
    jsonLd: z.record(z.string(), z.unknown()).nullable().openapi({
      description:
        "schema.org LocalBusiness + AggregateRating + Review for the first-party reviews shown; null when none (third-party reviews are never marked up)",
    }),
    brand: z
      .object({ name: z.string(), primaryColor: z.string().nullable(), accentColor: z.string().nullable() })
      .nullable()
      .openapi({
        description:
          "the tenant's or its agency's white label (docs/white-label.md): its colours on links and stars, its name in the footer; null shows no brand",
      }),
  })
  .openapi("PublicWidget");

export const KeyParam = z.object({ key: z.string().min(1).max(64) });

export type CreateWidgetInput = z.infer<typeof CreateWidgetBody>;
export type UpdateWidgetInput = z.infer<typeof UpdateWidgetBody>;
export type WidgetRow = typeof widgets.$inferSelect;

const base = (u: string) => u.replace(/\/+$/, "");

export function embedCodes(publicBaseUrl: string, key: string) {
  const page = `${base(publicBaseUrl)}/w/${key}`;
  return {
    script: `<div data-reputation-widget="${key}"></div>\n<script src="${page}/embed.js" async></script>`,
    iframe: `<iframe src="${page}" title="Customer reviews" loading="lazy" style="border:0;width:100%;max-width:40rem;height:640px"></iframe>`,
    jsonUrl: `${page}/reviews`,
    scriptUrl: `${page}/embed.js`,
    pageUrl: page,
  };
}

export const toWidget = (w: WidgetRow, publicBaseUrl: string) => ({
  id: w.id,
  tenantId: w.tenantId,
  locationId: w.locationId,
  name: w.name,
  publicKey: w.publicKey,
  minRating: w.minRating,
  sites: w.sites,
  count: w.count,
  order: w.order,
  isActive: w.isActive,
  footer: filterFooter(w),
  embed: embedCodes(publicBaseUrl, w.publicKey),
  createdAt: w.createdAt,
  updatedAt: w.updatedAt,
});
