import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, updatedAt } from "./columns";
import { locations, tenants } from "./tenancy";

export const REVIEW_LINK_SITES = ["google", "yelp", "facebook"] as const;
export type ReviewLinkSite = (typeof REVIEW_LINK_SITES)[number];

/** Share of customers sent to each site, as relative weights (0 = never). */
export type SiteWeights = Partial<Record<ReviewLinkSite, number>>;

/**
 * A location's public review link (`/l/{slug}`): each open goes to one review site drawn by the
 * configured weights, never by anything known about the customer. Printed as a QR code at the counter.
 */
export const reviewLinks = sqliteTable(
  "review_links",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    locationId: text("location_id")
      .notNull()
      .references(() => locations.id),
    /** the public key in the URL: random, unguessable, never reused */
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    weights: text("weights", { mode: "json" }).$type<SiteWeights>().notNull(),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("review_links_slug_uq").on(t.slug),
    index("review_links_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("review_links_location_idx").on(t.locationId),
  ],
);

export const REVIEW_LINK_CLICK_SOURCES = ["link", "qr"] as const;
export type ReviewLinkClickSource = (typeof REVIEW_LINK_CLICK_SOURCES)[number];

/** One open of a review link: where it went and whether it came from the printed QR code. No personal data. */
export const reviewLinkClicks = sqliteTable(
  "review_link_clicks",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id").notNull(),
    reviewLinkId: text("review_link_id").notNull(),
    site: text("site", { enum: REVIEW_LINK_SITES }).notNull(),
    source: text("source", { enum: REVIEW_LINK_CLICK_SOURCES }).notNull(),
    clickedAt: text("clicked_at").notNull(),
  },
  (t) => [index("review_link_clicks_link_idx").on(t.tenantId, t.reviewLinkId, t.clickedAt)],
);
