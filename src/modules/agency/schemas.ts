import { z } from "@hono/zod-openapi";
import { PageQuerySchema } from "../../lib/openapi";
import { CampaignSchema } from "../campaigns/schemas";
import { LocationSchema } from "../locations/schemas";

export const TenantRefSchema = z.object({ id: z.string(), name: z.string(), slug: z.string() }).openapi("TenantRef");

export const AgencyLocationSchema = LocationSchema.extend({ tenant: TenantRefSchema }).openapi("AgencyLocation");
export const AgencyCampaignSchema = CampaignSchema.extend({ tenant: TenantRefSchema }).openapi("AgencyCampaign");

/** Agency-wide lists: every owned tenant, or one of them. */
export const AgencyListQuery = PageQuerySchema.extend({
  tenantId: z.string().max(64).optional().openapi({ description: "only this owned tenant" }),
});

export const TenantIdParam = z.object({ tenantId: z.string().min(1).max(64) });
