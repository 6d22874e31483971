import { z } from "@hono/zod-openapi";
import { DateTime } from "../../lib/openapi";
import { TENANT_PLANS } from "../../db/schema";
import type { tenants } from "../../db/schema";

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
