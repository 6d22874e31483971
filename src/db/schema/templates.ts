import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, timestamp, updatedAt } from "./columns";
import { MESSAGE_CHANNELS } from "./outbox";
import { locations, tenants } from "./tenancy";

export const TEMPLATE_STATUSES = ["draft", "approved", "archived"] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

/**
 * Message templates. Versions of one template share `root_id` (the id of version 1); at most one
 * version of a lineage is approved and at most one is a draft at a time (partial unique indexes).
 */
export const templates = sqliteTable(
  "templates",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    rootId: text("root_id").notNull(),
    name: text("name").notNull(),
    channel: text("channel", { enum: MESSAGE_CHANNELS }).notNull(),
    status: text("status", { enum: TEMPLATE_STATUSES }).notNull().default("draft"),
    subject: text("subject"),
    bodyHtml: text("body_html"),
    bodyText: text("body_text"),
    locale: text("locale").notNull().default("en-US"),
    version: integer("version").notNull().default(1),
    tokens: text("tokens", { mode: "json" }).$type<string[]>().notNull().default([]),
    createdByUserId: text("created_by_user_id").notNull(),
    approvedByUserId: text("approved_by_user_id"),
    approvedAt: timestamp("approved_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("templates_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    uniqueIndex("templates_root_version_uq").on(t.rootId, t.version),
    uniqueIndex("templates_root_approved_uq").on(t.rootId).where(sql`status = 'approved'`),
    uniqueIndex("templates_root_draft_uq").on(t.rootId).where(sql`status = 'draft'`),
  ],
);

/** Per-location custom variables; each key is also a template token of the tenant. */
export const locationVariables = sqliteTable(
  "location_variables",
  {
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    locationId: text("location_id")
      .notNull()
      .references(() => locations.id),
    key: text("key").notNull(),
    value: text("value").notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.locationId, t.key] }),
    index("location_variables_tenant_key_idx").on(t.tenantId, t.key),
  ],
);
