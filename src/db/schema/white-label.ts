import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
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
    /**
     * canonical (canonicalHostname, src/lib/host-guard.ts: lower case, punycode, no trailing dot). Claimed
     * by one owner at most once; many owners may claim it unverified, only one verifies it
     */
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
    /** when that TXT record was seen; null: unverified, never used, expires 7 days after claimed_at */
    verifiedAt: timestamp("verified_at"),
    /**
     * when this owner first claimed this hostname (custom_hostname_claims): an unverified claim lapses 7 days
     * later, however often it was deleted and claimed again. Null only on rows older than the column: created_at
     */
    claimedAt: timestamp("claimed_at"),
  },
  (t) => [
    // one claim per owner and name; the name itself is held only by the claim that proved ownership
    uniqueIndex("custom_hostnames_hostname_owner_uq").on(t.hostname, t.scope, t.scopeId),
    uniqueIndex("custom_hostnames_verified_hostname_uq").on(t.hostname).where(sql`verified_at is not null`),
    index("custom_hostnames_scope_created_idx").on(t.scope, t.scopeId, t.createdAt, t.id),
    index("custom_hostnames_checked_idx").on(t.lastCheckedAt, t.id),
  ],
);

/**
 * An owner's first claim of a hostname, kept when the claim is deleted or lapses, so claiming again
 * neither restarts the 7 days nor changes the TXT record to publish (docs/white-label.md, "Ownership").
 * Removed once the owner proved ownership: a later claim of the name is a new claim with a new token.
 */
export const customHostnameClaims = sqliteTable(
  "custom_hostname_claims",
  {
    scope: text("scope", { enum: WHITE_LABEL_SCOPES }).notNull(),
    scopeId: text("scope_id").notNull(),
    hostname: text("hostname").notNull(),
    firstClaimedAt: timestamp("first_claimed_at").notNull(),
    ownershipToken: text("ownership_token").notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.scopeId, t.hostname] })],
);

/**
 * Never holds a row: the first statement of a claim's batch inserts one when the owner would go over
 * a cap (unverified claims, hostnames), and its CHECK fails the whole batch. A D1 batch is one
 * transaction, so concurrent claims cannot all pass a count (like frequency_cap_guard).
 */
export const customHostnameClaimGuard = sqliteTable(
  "custom_hostname_claim_guard",
  { kind: text("kind").notNull() },
  (t) => [
    check("unverified_hostname_claims_exceeded", sql`${t.kind} <> 'unverified'`),
    check("custom_hostnames_exceeded", sql`${t.kind} <> 'total'`),
  ],
);

/**
 * A white-label logo uploaded by its owner (docs/white-label.md "Logos"), served from our own origin at
 * `/brand-logos/{id}.{ext}` (never hot-linked from another site: a page makes no request to another origin).
 * One per owner: a new upload replaces the row, and its new id makes a new, immutable address. The bytes are
 * kept as base64url text (at most 256 KB of image, ~342 KB of text, well under D1's 2 MB row).
 */
export const brandLogos = sqliteTable(
  "brand_logos",
  {
    id: text("id").primaryKey(),
    scope: text("scope", { enum: WHITE_LABEL_SCOPES }).notNull(),
    scopeId: text("scope_id").notNull(),
    agencyId: text("agency_id").notNull(),
    /** image/png, image/jpeg or image/webp, as the bytes' signature says (never the upload's claim) */
    contentType: text("content_type").notNull(),
    bytes: text("data_base64").notNull(),
    size: integer("size").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("brand_logos_owner_uq").on(t.scope, t.scopeId)],
);
