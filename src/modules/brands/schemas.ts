import { z } from "@hono/zod-openapi";
import type { brands } from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { HttpUrl, Slug } from "../../lib/validators";

const text = (max = 500) => z.string().trim().max(max);

export const BrandSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    name: z.string(),
    slug: z.string(),
    logoUrl: z.string().nullable(),
    websiteUrl: z.string().nullable(),
    corporateAddress: z.string().nullable(),
    googleMyBusinessUrl: z.string().nullable(),
    googlePlaceId: z.string().nullable(),
    yelpUrl: z.string().nullable(),
    yelpBusinessId: z.string().nullable(),
    facebookUrl: z.string().nullable(),
    facebookPageId: z.string().nullable(),
    brandVoice: z.string().nullable().openapi({ example: "friendly" }),
    brandTone: z.string().nullable().openapi({ example: "warm" }),
    brandDescription: z.string().nullable(),
    isActive: z.boolean(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("Brand");

const BrandFields = {
  logoUrl: HttpUrl.nullable().optional(),
  websiteUrl: HttpUrl.nullable().optional(),
  corporateAddress: text().nullable().optional(),
  googleMyBusinessUrl: HttpUrl.nullable().optional(),
  googlePlaceId: text(255).nullable().optional(),
  yelpUrl: HttpUrl.nullable().optional(),
  yelpBusinessId: text(255).nullable().optional(),
  facebookUrl: HttpUrl.nullable().optional(),
  facebookPageId: text(255).nullable().optional(),
  brandVoice: text(100).nullable().optional(),
  brandTone: text(100).nullable().optional(),
  brandDescription: text(2000).nullable().optional(),
};

export const CreateBrandBody = z
  .object({ name: text(200).min(1), slug: Slug.optional(), ...BrandFields })
  .openapi("CreateBrandRequest");

export const UpdateBrandBody = z
  .object({ name: text(200).min(1), slug: Slug, isActive: z.boolean(), ...BrandFields })
  .partial()
  .openapi("UpdateBrandRequest");

export const BrandListQuery = PageQuerySchema.extend({
  isActive: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional(),
});

export type CreateBrandInput = z.infer<typeof CreateBrandBody>;
export type UpdateBrandInput = z.infer<typeof UpdateBrandBody>;
export type BrandDto = z.infer<typeof BrandSchema>;

export const toBrand = (b: typeof brands.$inferSelect): BrandDto => ({
  id: b.id,
  tenantId: b.tenantId,
  name: b.name,
  slug: b.slug,
  logoUrl: b.logoUrl,
  websiteUrl: b.websiteUrl,
  corporateAddress: b.corporateAddress,
  googleMyBusinessUrl: b.googleMyBusinessUrl,
  googlePlaceId: b.googlePlaceId,
  yelpUrl: b.yelpUrl,
  yelpBusinessId: b.yelpBusinessId,
  facebookUrl: b.facebookUrl,
  facebookPageId: b.facebookPageId,
  brandVoice: b.brandVoice,
  brandTone: b.brandTone,
  brandDescription: b.brandDescription,
  isActive: b.isActive,
  createdAt: b.createdAt,
  updatedAt: b.updatedAt,
});
