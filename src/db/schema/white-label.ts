import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, timestamp, updatedAt } from "./columns";

/** Who a white-label brand or a custom hostname belongs to: an agency (all its tenants) or one tenant. */
export const WHITE_LABEL_SCOPES = ["agency", "tenant"] as const;
export type WhiteLabelScope = (typeof WHITE_LABEL_SCOPES)[number];

/**
 * The brand public pages and emails show instead of the platform's: one row per agency, and an
 * optional override per tenant whose non-null fields win over its agency's (docs/white-label.md).
 */
export const whiteLabelBrands = sqliteTable(
  "white_label_brands",
  {
    id: text("id").primaryKey(),
    scope: text("scope", { enum: WHITE_LABEL_SCOPES }).notNull(),
    /** the agency id or the tenant id */
    scopeId: text("scope_id").notNull(),
    /** the owning agency (for a tenant override: the tenant's agency at write time) */
    agencyId: text("agency_id").notNull(),
    name: text("name"),
    logoUrl: text("logo_url"),
    primaryColor: text("primary_color"),
    accentColor: text("accent_color"),
    supportEmail: text("support_email"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("white_label_brands_scope_uq").on(t.scope, t.scopeId)],
);

/**
 * A hostname an agency or tenant serves its public pages and links on, provisioned as a Cloudflare
 * for SaaS custom hostname. `status` and `ssl_status` mirror Cloudflare's; the host routes requests
 * (and links use it) only while both are "active" and the claimant proved it owns the hostname
 * (`verified_at`: our TXT record, docs/white-label.md "Ownership").
 */
export const customHostnames = sqliteTable(
  "custom_hostnames",
  {
    id: text("id").primaryKey(),
    scope: text("scope", { enum: WHITE_LABEL_SCOPES }).notNull(),
    scopeId: text("scope_id").notNull(),
    agencyId: text("agency_id").notNull(),
    /** lower-case, no trailing dot; unique across the platform */
    hostname: text("hostname").notNull(),
    /** Cloudflare's custom hostname id; null until the provider accepted it */
    providerId: text("provider_id"),
    status: text("status").notNull(),
    sslStatus: text("ssl_status"),
    /** {ownership: {type, name, value} | null, ssl: [{txtName, txtValue, httpUrl, httpBody}], errors: string[]} */
    verification: text("verification", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    activatedAt: timestamp("activated_at"),
    lastCheckedAt: timestamp("last_checked_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /** per claim, random: the value of the `_reputation-ops-challenge.{hostname}` TXT record that proves ownership */
    ownershipToken: text("ownership_token"),
    /** when that TXT record was seen; null: unverified, never used, expires 7 days after created_at */
    verifiedAt: timestamp("verified_at"),
  },
  (t) => [
    uniqueIndex("custom_hostnames_hostname_uq").on(t.hostname),
    index("custom_hostnames_scope_created_idx").on(t.scope, t.scopeId, t.createdAt, t.id),
    index("custom_hostnames_checked_idx").on(t.lastCheckedAt, t.id),
  ],
);
