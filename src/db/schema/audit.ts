import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const ACTOR_TYPES = ["user", "system", "platform_admin"] as const;

export const auditEvents = sqliteTable(
  "audit_events",
  {
    id: text("id").primaryKey(),
    /** null only for platform-level actions (agencies, platform settings) */
    tenantId: text("tenant_id"),
    actorId: text("actor_id"),
    actorType: text("actor_type", { enum: ACTOR_TYPES }).notNull(),
    action: text("action").notNull(),
    resourceType: text("resource_type").notNull(),
    resourceId: text("resource_id").notNull(),
    previousState: text("previous_state", { mode: "json" }),
    nextState: text("next_state", { mode: "json" }),
    /** credential details that do not fit actorType: api key id, OAuth client id, MCP tool, request id */
    metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown>>(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    occurredAt: text("occurred_at").notNull(),
  },
  (t) => [
    index("audit_tenant_occurred_idx").on(t.tenantId, t.occurredAt, t.id),
    index("audit_resource_idx").on(t.resourceType, t.resourceId),
    index("audit_occurred_idx").on(t.occurredAt, t.id),
  ],
);
