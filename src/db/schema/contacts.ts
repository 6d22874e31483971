import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, jsonObject, timestamp, updatedAt } from "./columns";
import { tenants } from "./tenancy";

export const CONSENT_CHANNELS = ["email", "sms", "whatsapp", "in_app", "kiosk_follow_up"] as const;
export type ConsentChannel = (typeof CONSENT_CHANNELS)[number];
export const CONSENT_STATUSES = ["granted", "revoked", "pending"] as const;
export type ConsentStatus = (typeof CONSENT_STATUSES)[number];

/**
 * email is stored trimmed and lower-cased, phone in E.164, so equality on the unique indexes is
 * the upsert match. name_key ("first last") and name_key_reversed ("last first") are folded
 * (lower case, no diacritics) copies of the name: search is a prefix range on these four indexed
 * columns (see docs/contacts.md).
 */
export const contacts = sqliteTable(
  "contacts",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    email: text("email"),
    phone: text("phone"),
    firstName: text("first_name"),
    lastName: text("last_name"),
    locale: text("locale"),
    timezone: text("timezone"),
    isSuppressed: integer("is_suppressed", { mode: "boolean" }).notNull().default(false),
    suppressedAt: timestamp("suppressed_at"),
    suppressionReason: text("suppression_reason"),
    externalIds: jsonObject("external_ids"),
    sourceMetadata: jsonObject("source_metadata"),
    nameKey: text("name_key"),
    nameKeyReversed: text("name_key_reversed"),
    /** what retention counts from; null once the personal data is gone */
    lastActivityAt: timestamp("last_activity_at"),
    /** set by erasure or the retention sweep; such a contact accepts no further writes */
    anonymizedAt: timestamp("anonymized_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("contacts_tenant_email_uq").on(t.tenantId, t.email).where(sql`email is not null`),
    uniqueIndex("contacts_tenant_phone_uq").on(t.tenantId, t.phone).where(sql`phone is not null`),
    index("contacts_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("contacts_tenant_name_idx").on(t.tenantId, t.nameKey),
    index("contacts_tenant_name_rev_idx").on(t.tenantId, t.nameKeyReversed),
    index("contacts_tenant_activity_idx").on(t.tenantId, t.lastActivityAt),
  ],
);

/**
 * Contacts per tenant, kept by triggers on contacts (migration contacts_counts), so the list's
 * `total` is a primary-key read instead of a count over the tenant's index.
 */
export const contactCounts = sqliteTable("contact_counts", {
  tenantId: text("tenant_id")
    .primaryKey()
    .references(() => tenants.id),
  total: integer("total").notNull().default(0),
});

/**
 * Consent history: every grant or revoke is a new row. `seq` numbers the rows of one
 * (contact, channel) and is assigned inside the insert, so the latest is max(seq), never a tie.
 */
export const consentRecords = sqliteTable(
  "consent_records",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    contactId: text("contact_id")
      .notNull()
      .references(() => contacts.id),
    channel: text("channel", { enum: CONSENT_CHANNELS }).notNull(),
    status: text("status", { enum: CONSENT_STATUSES }).notNull(),
    seq: integer("seq").notNull(),
    source: text("source").notNull(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("consent_contact_channel_seq_uq").on(t.contactId, t.channel, t.seq),
    index("consent_tenant_contact_idx").on(t.tenantId, t.contactId, t.createdAt),
  ],
);
