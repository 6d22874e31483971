import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, timestamp, updatedAt } from "./columns";

/** The agency every tenant without one belongs to; seeded by migrations/tenant/0001_house_agency_contact_counts.sql. */
export const HOUSE_AGENCY_ID = "agency_house";

export const agencies = sqliteTable(
  "agencies",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    slug: text("slug").notNull().unique(),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("agencies_created_idx").on(t.createdAt, t.id)],
);

export const TENANT_PLANS = ["starter", "growth", "enterprise"] as const;

export const tenants = sqliteTable(
  "tenants",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    slug: text("slug").notNull().unique(),
    name: text("name").notNull(),
    plan: text("plan", { enum: TENANT_PLANS }).notNull().default("starter"),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    pausedAt: timestamp("paused_at"),
    pausedReason: text("paused_reason"),
    /** the tenant's shard (SHARD_<n>, src/db/shards.ts); read from the control database only */
    shard: integer("shard").notNull().default(0),
    /** set while the tenant is being moved to another shard: its writes are fenced (503 TENANT_MOVING) */
    movingSince: timestamp("moving_since"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("tenants_agency_created_idx").on(t.agencyId, t.createdAt, t.id),
    index("tenants_created_idx").on(t.createdAt, t.id),
  ],
);

export const brands = sqliteTable(
  "brands",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    logoUrl: text("logo_url"),
    websiteUrl: text("website_url"),
    corporateAddress: text("corporate_address"),
    googleMyBusinessUrl: text("google_my_business_url"),
    googlePlaceId: text("google_place_id"),
    yelpUrl: text("yelp_url"),
    yelpBusinessId: text("yelp_business_id"),
    facebookUrl: text("facebook_url"),
    facebookPageId: text("facebook_page_id"),
    brandVoice: text("brand_voice"),
    brandTone: text("brand_tone"),
    brandDescription: text("brand_description"),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("brands_tenant_slug_uq").on(t.tenantId, t.slug),
    index("brands_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
  ],
);

export const regions = sqliteTable(
  "regions",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    name: text("name").notNull(),
    code: text("code"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("regions_tenant_name_uq").on(t.tenantId, t.name),
    index("regions_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
  ],
);

export const locations = sqliteTable(
  "locations",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id),
    regionId: text("region_id").references(() => regions.id),
    name: text("name").notNull(),
    externalId: text("external_id"),
    addressLine1: text("address_line1"),
    addressLine2: text("address_line2"),
    city: text("city"),
    state: text("state"),
    postalCode: text("postal_code"),
    country: text("country").notNull().default("US"),
    timezone: text("timezone").notNull().default("UTC"),
    locale: text("locale").notNull().default("en-US"),
    phone: text("phone"),
    email: text("email"),
    websiteUrl: text("website_url"),
    googleMyBusinessUrl: text("google_my_business_url"),
    googlePlaceId: text("google_place_id"),
    yelpUrl: text("yelp_url"),
    yelpBusinessId: text("yelp_business_id"),
    facebookUrl: text("facebook_url"),
    facebookPageId: text("facebook_page_id"),
    latitude: real("latitude"),
    longitude: real("longitude"),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("locations_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("locations_brand_idx").on(t.brandId),
    index("locations_region_idx").on(t.regionId),
    // location.finder: a bounding-box seek per tenant
    index("locations_tenant_geo_idx").on(t.tenantId, t.latitude, t.longitude),
    uniqueIndex("locations_tenant_external_uq").on(t.tenantId, t.externalId).where(sql`external_id is not null`),
  ],
);
