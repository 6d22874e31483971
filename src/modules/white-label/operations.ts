import { z } from "@hono/zod-openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { TenantBrandingSchema } from "./schemas";
import { getTenantBranding } from "./service";

// The white label's operations in the catalogue (src/lib/operation.ts).

export const getWhiteLabelOperation = defineOperation({
  name: "white-label.get",
  summary: "Get the white-label brand and link host",
  description:
    "The brand the business's public pages and emails show (effective, and its source), the tenant's and agency's " +
    "stored brands, and publicBaseUrl: the review links' origin (the custom hostname when active).",
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
