import { z } from "@hono/zod-openapi";
import type { regions } from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";

export const RegionSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    name: z.string(),
    code: z.string().nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("Region");

const Code = z.string().trim().min(1).max(32).nullable();

export const CreateRegionBody = z
  .object({ name: z.string().trim().min(1).max(200), code: Code.optional() })
  .openapi("CreateRegionRequest");

export const UpdateRegionBody = CreateRegionBody.partial().openapi("UpdateRegionRequest");

export const RegionListQuery = PageQuerySchema;

export type CreateRegionInput = z.infer<typeof CreateRegionBody>;
export type UpdateRegionInput = z.infer<typeof UpdateRegionBody>;

export const toRegion = (r: typeof regions.$inferSelect) => ({
  id: r.id,
  tenantId: r.tenantId,
  name: r.name,
  code: r.code,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});
