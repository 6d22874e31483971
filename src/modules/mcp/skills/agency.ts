import { z } from "@hono/zod-openapi";
import { asc, inArray } from "drizzle-orm";
import { tenants } from "../../../db/schema";
import { controlDb } from "../../../db/shards";
import { toTenant } from "../../tenants/schemas";
import { skill } from "./registry";

export const agencyListTenantsSkill = skill({
  name: "agency.list-tenants",
  title: "List the agency's tenants",
  description:
    "Lists every tenant (client business) owned by the agencies you administer, with id, name, slug, plan and " +
    "whether it is active. Pass a tenant's id as tenantId to other tools to act for that tenant. " +
    "Only available in an agency session.",
  input: z.object({}),
  scopes: null,
  access: "read",
  agencyOnly: true,
  handler: async (ctx) => {
    if (ctx.agencyIds.length === 0) return { data: [], total: 0 };
    const rows = await controlDb(ctx.env)
      .select()
      .from(tenants)
      .where(inArray(tenants.agencyId, ctx.agencyIds))
      .orderBy(asc(tenants.name), asc(tenants.id));
    return { data: rows.map(toTenant), total: rows.length };
  },
});
