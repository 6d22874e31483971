import { z } from "@hono/zod-openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { TenantBrandingSchema } from "./schemas";
import { getTenantBranding } from "./service";

// The white label's operations in the catalogue (src/lib/operation.ts).

export const getWhiteLabelOperation = defineOperation({
  name: "white-label.get",
  summary: "Get the white-label brand and link host",
  description:
    "Returns the brand the business's public pages and emails show (effective: name, logo URL, primary and accent " +
    "colours, support email, and whether it comes from the tenant's override, its agency or the platform default), " +
    "the tenant's override and its agency's brand as stored, and publicBaseUrl: the origin its review links use " +
    "(its custom hostname when one is active). Use it to describe how customers see the business's pages.",
  input: z.object({}),
  output: TenantBrandingSchema,
  scopes: ["read:locations"],
  access: "read",
  mcp: { title: "Get the white-label brand and link host", agencyAware: true },
  // white-label rows are control-plane rows (docs/scaling.md): getTenantBranding reads them on ctx.control
  handler: async (ctx) => getTenantBranding(ctx),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [getWhiteLabelOperation];
