import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, jsonObject, timestamp, updatedAt } from "./columns";
import { MESSAGE_CHANNELS } from "./outbox";

export const SOLICITATION_STATUSES = ["PENDING", "SENT", "DELIVERED", "FAILED", "BLOCKED", "BOUNCED"] as const;
export type SolicitationStatus = (typeof SOLICITATION_STATUSES)[number];

export const BLOCKED_REASONS = [
  "TENANT_PAUSED",
  "SUPPRESSED",
  "MISSING_ADDRESS",
  "NO_CONSENT",
  "QUIET_HOURS",
  "FREQUENCY_CAP_DAILY",
  "FREQUENCY_CAP_WEEKLY",
] as const;
export type BlockedReason = (typeof BLOCKED_REASONS)[number];

/**
 * What is known of a send's outcome beyond the status (docs/sending.md, "Crash truth"): "unknown"
 * when the provider was called but the consumer died before its answer, and nothing the provider,
 * the outbox or a webhook said since can tell whether it was accepted. The status is then SENT.
 */
export const DELIVERY_OUTCOMES = ["unknown"] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

export const solicitations = sqliteTable(
  "solicitations",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id").notNull(),
    locationId: text("location_id").notNull(),
    contactId: text("contact_id").notNull(),
    campaignId: text("campaign_id"),
    templateId: text("template_id"),
    experimentId: text("experiment_id"),
    variantId: text("variant_id"),
    /** the drip step this send belongs to (0 for the first message of a campaign with a sequence) */
    sequenceStepIndex: integer("sequence_step_index"),
    channel: text("channel", { enum: MESSAGE_CHANNELS }).notNull(),
    status: text("status", { enum: SOLICITATION_STATUSES }).notNull(),
    shortLinkToken: text("short_link_token").notNull(),
    destinationUrl: text("destination_url"),
    blockedReason: text("blocked_reason", { enum: BLOCKED_REASONS }),
    provider: text("provider"),
    providerMessageId: text("provider_message_id"),
    failureReason: text("failure_reason"),
    deliveryOutcome: text("delivery_outcome", { enum: DELIVERY_OUTCOMES }),
    sentAt: timestamp("sent_at"),
    deliveredAt: timestamp("delivered_at"),
    clickedAt: timestamp("clicked_at"),
    convertedAt: timestamp("converted_at"),
    idempotencyKey: text("idempotency_key"),
    metadata: jsonObject("metadata"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("solicitations_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    /**
     * frequency caps: this contact's recent non-blocked sends; a contact's message history, newest first
     * (GET /v1/contacts/{id}/solicitations: the id makes the tie-break need no sort)
     */
    index("solicitations_contact_created_idx").on(t.tenantId, t.contactId, t.createdAt, t.id),
    /** the solicitation list's status and channel filters (GET /v1/solicitations) */
    index("solicitations_tenant_status_created_idx").on(t.tenantId, t.status, t.createdAt, t.id),
    index("solicitations_tenant_channel_created_idx").on(t.tenantId, t.channel, t.createdAt, t.id),
    /** the policy's refusals by reason (GET /v1/compliance/refusals; partial: only BLOCKED rows have one) */
    index("solicitations_tenant_blocked_created_idx")
      .on(t.tenantId, t.blockedReason, t.createdAt, t.id)
      .where(sql`blocked_reason is not null`),
    index("solicitations_campaign_created_idx").on(t.campaignId, t.createdAt, t.id),
    index("solicitations_location_idx").on(t.locationId),
    /** analytics: recomputing one location's day of the funnel; the solicitation list's location filter (the id: no sort) */
    index("solicitations_tenant_location_created_idx").on(t.tenantId, t.locationId, t.createdAt, t.id),
    index("solicitations_provider_message_idx").on(t.providerMessageId),
    uniqueIndex("solicitations_short_link_uq").on(t.shortLinkToken),
    /** experiment results: counts per variant */
    index("solicitations_experiment_variant_idx").on(t.experimentId, t.variantId),
    /** the stale-PENDING sweep, across tenants */
    index("solicitations_status_created_idx").on(t.status, t.createdAt),
    /** the "outcome unknown" filter and count of a campaign (partial: almost every row is null) */
    index("solicitations_campaign_outcome_idx")
      .on(t.campaignId, t.deliveryOutcome)
      .where(sql`delivery_outcome is not null`),
  ],
);

/** IETF Idempotency-Key records for POST /v1/solicitations, per tenant, kept 24 hours. */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    tenantId: text("tenant_id").notNull(),
    key: text("key").notNull(),
    /** SHA-256 of the canonical request body: the same key with another body is 422 */
    requestHash: text("request_hash").notNull(),
    /** null while the first request is in flight (a concurrent duplicate waits for it) */
    responseStatus: integer("response_status"),
    responseBody: text("response_body", { mode: "json" }),
    createdAt: createdAt(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.key] }), index("idempotency_keys_expires_idx").on(t.expiresAt)],
);

/** One row per solicitation handed to a provider: a redelivered queue message never sends twice. */
export const sendRecords = sqliteTable(
  "send_records",
  {
    solicitationId: text("solicitation_id").primaryKey(),
    /**
     * The solicitation's tenant, so a tenant move carries the claims with the tenant (docs/scaling.md). Null
     * only on a row written before migration 0010 whose solicitation was already gone (nothing reads it).
     */
    tenantId: text("tenant_id"),
    provider: text("provider").notNull(),
    providerMessageId: text("provider_message_id"),
    createdAt: createdAt(),
  },
  // a tenant move reads and deletes by (tenant_id, primary key) in key order
  (t) => [index("send_records_tenant_idx").on(t.tenantId, t.solicitationId)],
);

/**
 * Never holds a row: its CHECK fails every insert. A send's D1 batch starts with
 * `INSERT INTO frequency_cap_guard SELECT ... WHERE <a contact's non-blocked sends + this batch's > cap>`,
 * so a batch that would exceed a frequency cap fails as a whole (and is decided again), while the
 * count and the inserts run in one batch that no other write can interleave with.
 */
export const frequencyCapGuard = sqliteTable("frequency_cap_guard", { contactId: text("contact_id").notNull() }, () => [
  check("frequency_cap_exceeded", sql`0`),
]);
