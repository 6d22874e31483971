import { z } from "@hono/zod-openapi";
import type { locations } from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { CountryCode, Email, HttpUrl, Locale, TimeZone } from "../../lib/validators";

const text = (max = 255) => z.string().trim().max(max);

export const LocationSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    brandId: z.string(),
    regionId: z.string().nullable(),
    name: z.string(),
    externalId: z.string().nullable(),
    addressLine1: z.string().nullable(),
    addressLine2: z.string().nullable(),
    city: z.string().nullable(),
    state: z.string().nullable(),
    postalCode: z.string().nullable(),
    country: z.string(),
    timezone: z.string(),
    locale: z.string(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    websiteUrl: z.string().nullable(),
    googleMyBusinessUrl: z.string().nullable(),
    googlePlaceId: z.string().nullable(),
    yelpUrl: z.string().nullable(),
    yelpBusinessId: z.string().nullable(),
    facebookUrl: z.string().nullable(),
    facebookPageId: z.string().nullable(),
    latitude: z.number().nullable(),
    longitude: z.number().nullable(),
    isActive: z.boolean(),
    createdAt: DateTime,
    updatedAt: DateTime,
    brand: z.object({ id: z.string(), name: z.string() }).nullable(),
  })
  .openapi("Location");

const LocationFields = {
  brandId: z.string().min(1).optional().openapi({ description: "default: the tenant's oldest active brand" }),
  regionId: z.string().min(1).nullable().optional(),
  externalId: text().nullable().optional(),
  addressLine1: text().nullable().optional(),
  addressLine2: text().nullable().optional(),
  city: text(120).nullable().optional(),
  state: text(120).nullable().optional(),
  postalCode: text(20).nullable().optional(),
  country: CountryCode.optional().openapi({ description: "ISO 3166-1 alpha-2; default US" }),
  timezone: TimeZone.optional().openapi({ description: "IANA zone; default UTC" }),
  locale: Locale.optional().openapi({ description: "BCP 47; default en-US" }),
  phone: text(32).nullable().optional(),
  email: Email.nullable().optional(),
  websiteUrl: HttpUrl.nullable().optional(),
  googleMyBusinessUrl: HttpUrl.nullable().optional(),
  googlePlaceId: text().nullable().optional(),
  yelpUrl: HttpUrl.nullable().optional(),
  yelpBusinessId: text().nullable().optional(),
  facebookUrl: HttpUrl.nullable().optional(),
  facebookPageId: text().nullable().optional(),
  latitude: z.number().min(-90).max(90).nullable().optional(),
  longitude: z.number().min(-180).max(180).nullable().optional(),
};

export const CreateLocationBody = z
  .object({ name: text(200).min(1), ...LocationFields })
  .openapi("CreateLocationRequest");

export const UpdateLocationBody = z
  .object({ name: text(200).min(1).optional(), isActive: z.boolean().optional(), ...LocationFields })
  .openapi("UpdateLocationRequest");

export const LocationListQuery = PageQuerySchema.extend({
  brandId: z.string().optional(),
  regionId: z.string().optional(),
  isActive: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional(),
});

/** The answer of a CSV import (POST /v1/locations/bulk). */
export const LocationBulkResultSchema = z
  .object({
    imported: z.number().int().openapi({ description: "new locations" }),
    updated: z.number().int().openapi({ description: "existing locations matched on externalId" }),
    errors: z.array(
      z.object({
        row: z.number().int().openapi({ description: "1 = the first row after the header" }),
        reason: z.string(),
      }),
    ),
  })
  .openapi("LocationBulkResult");

export type CreateLocationInput = z.infer<typeof CreateLocationBody>;
export type UpdateLocationInput = z.infer<typeof UpdateLocationBody>;
export type LocationRow = typeof locations.$inferSelect;

export const toLocation = (l: LocationRow, brand: { id: string; name: string } | null) => ({
  id: l.id,
  tenantId: l.tenantId,
  brandId: l.brandId,
  regionId: l.regionId,
  name: l.name,
  externalId: l.externalId,
  addressLine1: l.addressLine1,
  addressLine2: l.addressLine2,
  city: l.city,
  state: l.state,
  postalCode: l.postalCode,
  country: l.country,
  timezone: l.timezone,
  locale: l.locale,
  phone: l.phone,
  email: l.email,
  websiteUrl: l.websiteUrl,
  googleMyBusinessUrl: l.googleMyBusinessUrl,
  googlePlaceId: l.googlePlaceId,
  yelpUrl: l.yelpUrl,
  yelpBusinessId: l.yelpBusinessId,
  facebookUrl: l.facebookUrl,
  facebookPageId: l.facebookPageId,
  latitude: l.latitude,
  longitude: l.longitude,
  isActive: l.isActive,
  createdAt: l.createdAt,
  updatedAt: l.updatedAt,
  brand,
});
