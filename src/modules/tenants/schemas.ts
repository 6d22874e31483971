import { z } from "@hono/zod-openapi";
import type { tenants } from "../../db/schema";
import { TENANT_PLANS, TENANT_ROLES } from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { Slug } from "../../lib/validators";
import { BrandSchema } from "../brands/schemas";

export const TenantSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    plan: z.enum(TENANT_PLANS),
    isActive: z.boolean(),
    pausedAt: DateTime.nullable(),
    pausedReason: z.string().nullable(),
    agencyId: z.string(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("Tenant");

export type TenantDto = z.infer<typeof TenantSchema>;

export const toTenant = (t: typeof tenants.$inferSelect): TenantDto => ({
  id: t.id,
  slug: t.slug,
  name: t.name,
  plan: t.plan,
  isActive: t.isActive,
  pausedAt: t.pausedAt,
  pausedReason: t.pausedReason,
  agencyId: t.agencyId,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
});

export const TenantCountsSchema = z
  .object({
    users: z.number().int(),
    contacts: z.number().int(),
    solicitations: z.number().int(),
    integrations: z.number().int(),
  })
  .openapi("TenantCounts");

export const TenantWithCountsSchema = TenantSchema.extend({ _count: TenantCountsSchema }).openapi("TenantWithCounts");

/** GET /admin/tenants: the platform admin also sees the shard each tenant's data is on. */
export const AdminTenantSchema = TenantWithCountsSchema.extend({
  shard: z.number().int().openapi({ description: "the tenant database (shard) holding its data" }),
}).openapi("AdminTenant");

export const EmailConfigSummarySchema = z
  .object({
    fromAddress: z.string(),
    fromName: z.string(),
    senderDomain: z.string().nullable(),
    dkimStatus: z.enum(["pending", "verified", "failed"]),
    dmarcStatus: z.enum(["pending", "verified", "failed"]),
  })
  .openapi("TenantEmailConfigSummary");

export const TenantDetailSchema = TenantWithCountsSchema.extend({
  brands: z.array(BrandSchema),
  emailConfig: EmailConfigSummarySchema.nullable().openapi({
    description: "null until the tenant configures its own email sender",
  }),
}).openapi("TenantDetail");

export const TenantListQuery = PageQuerySchema.extend({
  search: z.string().trim().max(100).optional().openapi({ description: "part of the name or slug, any case" }),
  agencyId: z.string().max(64).optional(),
  isActive: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional(),
});

export const UpdateTenantBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    plan: z.enum(TENANT_PLANS).optional(),
    isActive: z
      .boolean()
      .optional()
      .openapi({ description: "false pauses the tenant (sends stop, its users become read-only); true resumes" }),
    pausedReason: z
      .string()
      .trim()
      .max(500)
      .nullable()
      .optional()
      .openapi({ description: "only with a pause, or while paused" }),
  })
  .openapi("UpdateTenantRequest");

export const CreateTenantBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    slug: Slug,
    plan: z.enum(TENANT_PLANS).default("starter"),
    brandName: z.string().trim().min(1).max(200).optional().openapi({ description: "default: the tenant name" }),
    brandSlug: Slug.optional().openapi({ description: "default: derived from brandName" }),
    agencyId: z.string().max(64).optional().openapi({
      description:
        "required only when the caller administers several agencies (platform admins: default the house agency)",
    }),
  })
  .openapi("CreateTenantRequest");

export type UpdateTenantInput = z.infer<typeof UpdateTenantBody>;
export type CreateTenantInput = z.infer<typeof CreateTenantBody>;

export const ReachableTenantSchema = TenantSchema.extend({
  role: z.enum(TENANT_ROLES).openapi({ description: "the role the caller acts with in this tenant" }),
  via: z.enum(["platform", "tenant", "agency"]).openapi({
    description:
      "tenant: a role of the caller's own here; agency: as an admin of its agency; platform: as the platform's admin",
  }),
}).openapi("ReachableTenant");

export const ReachableTenantQuery = PageQuerySchema.extend({
  search: z.string().trim().max(100).optional().openapi({ description: "part of the name or slug, any case" }),
});
