import { index, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Transactional outbox: a domain event is inserted in the same db.batch as the change that
 * caused it, then handed to the EVENTS queue after commit (and by a sweep if that hand-off was lost).
 */
export const domainEvents = sqliteTable(
  "domain_events",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id").notNull(),
    type: text("type").notNull(),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    occurredAt: text("occurred_at").notNull(),
    dispatchedAt: text("dispatched_at"),
  },
  (t) => [
    index("domain_events_pending_idx").on(t.dispatchedAt, t.occurredAt),
    index("domain_events_tenant_idx").on(t.tenantId, t.occurredAt, t.id),
  ],
);

/** Which handler has processed which event: redelivered events skip the handlers already done. */
export const processedEvents = sqliteTable(
  "processed_events",
  {
    eventId: text("event_id").notNull(),
    handler: text("handler").notNull(),
    /**
     * The event's tenant, so a tenant move carries the ledger with the tenant and a redelivery after the move
     * skips the handlers already done (docs/scaling.md). Null only on a row written before migration 0010
     * whose event was already pruned.
     */
    tenantId: text("tenant_id"),
    processedAt: text("processed_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.eventId, t.handler] }),
    index("processed_events_at_idx").on(t.processedAt),
    // a tenant move reads and deletes by (tenant_id, primary key) in key order
    index("processed_events_tenant_idx").on(t.tenantId, t.eventId, t.handler),
  ],
);
