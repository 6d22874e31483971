import { z } from "@hono/zod-openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { TenantSchema } from "../tenants/schemas";
import { listScopeTenants } from "./service";
import { tenantOperations } from "./tenants.operations";

// The agency's operations (/agency, an agency admin or a platform admin) in the catalogue
// (src/lib/operation.ts): the handler gets an AgencyOperationContext (the agencies it acts for).

export const listSessionTenantsOperation = defineOperation({
  name: "agency.list-tenants",
  context: "agency",
  summary: "The tenants of the agencies the caller administers",
  description:
    "Lists every tenant (client business) owned by the agencies you administer, with id, name, slug, plan and " +
    "whether it is active. Pass a tenant's id as tenantId to other tools to act for that tenant. " +
    "Only available in an agency session.",
  input: z.object({}),
  output: z.object({ data: z.array(TenantSchema), total: z.number().int() }),
  // over MCP an agency session's kind admits it, not a scope
  scopes: [],
  access: "read",
  variantOf: {
    operationId: "listAgencyTenants",
    why: "an agency session's pick list: every tenant at once, by name, {data, total}; GET /agency/tenants answers a cursor page with counts",
  },
  mcp: { title: "List the agency's tenants" },
  handler: async (ctx) => listScopeTenants(ctx.control, ctx.agencies),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [listSessionTenantsOperation, ...tenantOperations];
