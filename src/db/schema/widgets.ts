import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, updatedAt } from "./columns";
import { locations, tenants } from "./tenancy";

export const WIDGET_ORDERS = ["newest", "best"] as const;
export type WidgetOrder = (typeof WIDGET_ORDERS)[number];

/**
 * A review showcase: the reviews a tenant chose to show on its own website (a location's, or all of
 * the tenant's), served publicly by `public_key` as JSON, a script and an iframe page. The filters
 * are the tenant's and are printed in the widget's footer.
 */
export const widgets = sqliteTable(
  "widgets",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    /** null: every location of the tenant */
    locationId: text("location_id").references(() => locations.id),
    publicKey: text("public_key").notNull(),
    name: text("name").notNull(),
    minRating: integer("min_rating").notNull().default(1),
    /** review site types shown (google, yelp, first_party, ...); empty = every site */
    sites: text("sites", { mode: "json" }).$type<string[]>().notNull().default([]),
    count: integer("count").notNull().default(5),
    order: text("order", { enum: WIDGET_ORDERS }).notNull().default("newest"),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("widgets_public_key_uq").on(t.publicKey),
    index("widgets_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("widgets_location_idx").on(t.locationId),
  ],
);
