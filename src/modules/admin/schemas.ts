import { z } from "@hono/zod-openapi";
import { type agencies, TENANT_MOVE_STATES, type tenantMoves } from "../../db/schema";
import { MAX_SHARDS } from "../../db/shards";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { Email, Slug } from "../../lib/validators";

export const AgencySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    isActive: z.boolean(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("Agency");

export const AgencyAdminGrantSchema = z
  .object({
    agencyId: z.string(),
    userId: z.string(),
    email: z.string(),
    role: z.literal("agency_admin"),
    invited: z.boolean().openapi({ description: "true when a new account was created and emailed an invite" }),
  })
  .openapi("AgencyAdminGrant");

export const CreatedAgencySchema = AgencySchema.extend({
  admin: AgencyAdminGrantSchema.nullable().openapi({
    description: "the first agency_admin, when adminEmail was given",
  }),
}).openapi("CreatedAgency");

const Name = z.string().trim().min(1).max(200);

export const CreateAgencyBody = z
  .object({ name: Name, slug: Slug, adminEmail: Email.optional(), adminName: Name.optional() })
  .openapi("CreateAgencyRequest");

export const AddAgencyAdminBody = z.object({ email: Email, name: Name.optional() }).openapi("AddAgencyAdminRequest");

export const AgencyListQuery = PageQuerySchema;

export type CreateAgencyInput = z.infer<typeof CreateAgencyBody>;

export const toAgency = (a: typeof agencies.$inferSelect) => ({
  id: a.id,
  name: a.name,
  slug: a.slug,
  isActive: a.isActive,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
});

export const MoveTenantBody = z
  .object({
    shard: z
      .number()
      .int()
      .min(0)
      .max(MAX_SHARDS - 1),
  })
  .openapi("MoveTenantBody");

export const TenantMoveSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    from: z.number().int(),
    to: z.number().int(),
    state: z.enum(TENANT_MOVE_STATES).openapi({
      description:
        "fencing -> copying -> verifying -> settling (flipped) -> rechecking -> deleting -> succeeded; before the flip a failure goes rolling_back -> failed (the tenant stays on `from`)",
    }),
    rows: z.number().int().openapi({ description: "rows copied so far" }),
    tables: z
      .array(
        z.object({
          table: z.string(),
          copied: z.number().int(),
          rows: z.number().int().nullable(),
          checksum: z.string().nullable(),
        }),
      )
      .openapi({
        description: "per tenant table: rows copied, then the verified row count and checksum (null until verified)",
      }),
    progress: z
      .object({ table: z.string().nullable(), tableIndex: z.number().int(), tableCount: z.number().int() })
      .openapi({ description: "the table the current phase is on" }),
    sourceDeleted: z.boolean(),
    sourceChanged: z.array(z.string()).openapi({
      description: "tables written on the source after verification: their source rows are kept for a manual reconcile",
    }),
    error: z.string().nullable(),
    chunkRows: z.number().int(),
    notBefore: DateTime.nullable().openapi({
      description: "the next slice waits until then (the directory TTL after fencing and after the flip)",
    }),
    createdByUserId: z.string().nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
    finishedAt: DateTime.nullable(),
  })
  .openapi("TenantMove");

export const TenantMoveListSchema = z.object({ data: z.array(TenantMoveSchema) }).openapi("TenantMoveList");

export type TenantMoveView = z.infer<typeof TenantMoveSchema>;

export const toTenantMove = (m: typeof tenantMoves.$inferSelect): TenantMoveView => ({
  id: m.id,
  tenantId: m.tenantId,
  from: m.fromShard,
  to: m.toShard,
  state: m.state,
  rows: m.tables.reduce((n, t) => n + t.copied, 0),
  tables: m.tables,
  progress: { table: m.tables[m.tableIndex]?.table ?? null, tableIndex: m.tableIndex, tableCount: m.tables.length },
  sourceDeleted: m.sourceDeleted,
  sourceChanged: m.sourceChanged,
  error: m.error,
  chunkRows: m.chunkRows,
  notBefore: m.notBefore,
  createdByUserId: m.createdByUserId,
  createdAt: m.createdAt,
  updatedAt: m.updatedAt,
  finishedAt: m.finishedAt,
});
