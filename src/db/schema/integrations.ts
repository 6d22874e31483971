import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, jsonObject, timestamp, updatedAt } from "./columns";
import { locations, tenants } from "./tenancy";

export const SYNC_STATUSES = ["ok", "error", "rate_limited"] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];

/** Whether the site takes replies by API for this connection (Yelp: the partner Respond to Reviews API is enabled per location). */
export const REPLY_ACCESS = ["granted", "denied"] as const;
export type ReplyAccess = (typeof REPLY_ACCESS)[number];

/**
 * A connection to an outside system (review sites today; CRM connectors later). The secrets live
 * only in credentials_encrypted (AES-GCM with ENCRYPTION_KEY) and never leave the service.
 */
export const integrations = sqliteTable(
  "integrations",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    locationId: text("location_id").references(() => locations.id),
    connectorType: text("connector_type").notNull(),
    name: text("name").notNull(),
    isEnabled: integer("is_enabled", { mode: "boolean" }).notNull().default(true),
    isSandbox: integer("is_sandbox", { mode: "boolean" }).notNull().default(false),
    config: jsonObject("config"),
    credentialsEncrypted: text("credentials_encrypted"),
    /** when a sync was last queued; the periodic sweep skips connections queued recently */
    syncRequestedAt: timestamp("sync_requested_at"),
    /** start of the last sync that completed; the next one fetches changes since then */
    lastSyncAt: timestamp("last_sync_at"),
    lastSyncStatus: text("last_sync_status", { enum: SYNC_STATUSES }),
    lastSyncError: text("last_sync_error"),
    /** Google: whether the location may reply (verified, VoiceOfMerchantState), as last read; null = not known yet */
    siteVerified: integer("site_verified", { mode: "boolean" }),
    siteVerifiedAt: timestamp("site_verified_at"),
    /**
     * Set when the site says the connection cannot work as configured until a person acts (a Graph
     * API deprecation, an expired token, a missing permission): the sweep stops polling it and the
     * API shows it. Cleared by a successful sync or by editing the integration.
     */
    attentionCode: text("attention_code"),
    attentionMessage: text("attention_message"),
    attentionAt: timestamp("attention_at"),
    /** null until the site answered a reply: granted after one was accepted, denied when the site refused the feature */
    replyAccess: text("reply_access", { enum: REPLY_ACCESS }),
    replyAccessCheckedAt: timestamp("reply_access_checked_at"),
    /** the last verified webhook from the site (Trustpilot): while they arrive, polling is only a daily reconciliation */
    lastWebhookAt: timestamp("last_webhook_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("integrations_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("integrations_location_idx").on(t.locationId),
    index("integrations_enabled_idx").on(t.isEnabled, t.connectorType),
  ],
);
