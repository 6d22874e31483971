import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, updatedAt } from "./columns";
import { MESSAGE_CHANNELS } from "./outbox";
import { tenants } from "./tenancy";

export const DOMAIN_STATUSES = ["pending", "verified", "failed"] as const;
export type DomainStatus = (typeof DOMAIN_STATUSES)[number];

/** Channel fields of EmailConfig / SmsConfig / WhatsAppConfig that are not columns. */
export interface ChannelConfig {
  fromAddress?: string;
  fromName?: string;
  replyToAddress?: string | null;
  senderDomain?: string | null;
  fromNumber?: string | null;
  channelRegistrationId?: string | null;
}

export interface DomainCheck {
  checkedAt: string;
  dkim: { selector: string; name: string; status: DomainStatus; record: string | null }[];
  dmarc: { name: string; status: DomainStatus; record: string | null };
  error?: string;
}

/**
 * A tenant's provider for one channel. Credentials are one AES-GCM sealed JSON object (encryptSecret),
 * never returned by the API; credential_fields lists which keys it holds.
 */
export const messagingSettings = sqliteTable(
  "messaging_settings",
  {
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    channel: text("channel", { enum: MESSAGE_CHANNELS }).notNull(),
    provider: text("provider").notNull(),
    config: text("config", { mode: "json" }).$type<ChannelConfig>().notNull().default({}),
    /** non-secret provider options (region, endpoint, host/port, accountSid, ...) */
    options: text("options", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    credentials: text("credentials"),
    credentialFields: text("credential_fields", { mode: "json" }).$type<string[]>().notNull().default([]),
    fallbackToPlatform: integer("fallback_to_platform", { mode: "boolean" }).notNull().default(false),
    dkimStatus: text("dkim_status", { enum: DOMAIN_STATUSES }).notNull().default("pending"),
    dmarcStatus: text("dmarc_status", { enum: DOMAIN_STATUSES }).notNull().default("pending"),
    domainCheck: text("domain_check", { mode: "json" }).$type<DomainCheck>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.channel] })],
);

export type MessagingSettingsRow = typeof messagingSettings.$inferSelect;
