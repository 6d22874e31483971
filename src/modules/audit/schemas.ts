import { z } from "@hono/zod-openapi";
import { ACTOR_TYPES, type auditEvents } from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";

export const AuditEventSchema = z
  .object({
    id: z.string(),
    tenantId: z.string().nullable().openapi({ description: "null only for platform-level actions" }),
    action: z.string(),
    resourceType: z.string(),
    resourceId: z.string(),
    actorId: z.string().nullable(),
    actorType: z.enum(ACTOR_TYPES),
    previousState: z.unknown(),
    nextState: z.unknown(),
    metadata: z
      .record(z.string(), z.unknown())
      .nullable()
      .openapi({ description: "credential details: api key, agency scope, request id" }),
    ipAddress: z.string().nullable(),
    userAgent: z.string().nullable(),
    occurredAt: DateTime,
  })
  .openapi("AuditEvent");

const Instant = z.iso.datetime({ offset: true }).transform((s) => new Date(s).toISOString());

export const AuditFilterSchema = z.object({
  action: z.string().max(100).optional(),
  resourceType: z.string().max(100).optional(),
  resourceId: z.string().max(100).optional(),
  actorId: z.string().max(100).optional(),
  from: Instant.optional().openapi({ description: "occurredAt >= from", format: "date-time" }),
  to: Instant.optional().openapi({ description: "occurredAt < to", format: "date-time" }),
});

export const AuditListQuery = PageQuerySchema.extend(AuditFilterSchema.shape);
export const AdminAuditListQuery = AuditListQuery.extend({ tenantId: z.string().max(64).optional() });

export type AuditFilter = z.infer<typeof AuditFilterSchema> & { tenantId?: string };

export type AuditRow = typeof auditEvents.$inferSelect;

export const toAuditEvent = (e: AuditRow) => ({
  id: e.id,
  tenantId: e.tenantId,
  action: e.action,
  resourceType: e.resourceType,
  resourceId: e.resourceId,
  actorId: e.actorId,
  actorType: e.actorType,
  previousState: e.previousState,
  nextState: e.nextState,
  metadata: e.metadata ?? null,
  ipAddress: e.ipAddress,
  userAgent: e.userAgent,
  occurredAt: e.occurredAt,
});

export const CSV_COLUMNS = [
  "id",
  "occurredAt",
  "tenantId",
  "action",
  "resourceType",
  "resourceId",
  "actorType",
  "actorId",
  "ipAddress",
  "userAgent",
  "previousState",
  "nextState",
] as const;
