import { z } from "@hono/zod-openapi";
import { errors, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { LOGO_MAX_BYTES, setBrandLogo } from "./logos";
import { AgencyIdParam, TenantBrandingSchema, WhiteLabelBrandSchema } from "./schemas";
import { agencyOwner, getTenantBranding, tenantOwner } from "./service";

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

/** The logo upload's form: one image file (docs/white-label.md "Logos"). */
const LogoForm = z.object({
  file: z.instanceof(File).openapi({
    type: "string",
    format: "binary",
    description: "PNG, JPEG or WebP (judged by the file's first bytes; SVG is refused), at most 256 KB",
  }),
});
const logoLimit = {
  // multipart overhead on top of the image's own 256 KB
  bytes: LOGO_MAX_BYTES + 16 * 1024,
  message: "The logo is larger than 256 KB; nothing was changed",
};
const logoDescription =
  "Stores the image and sets the brand's logoUrl to its address on this service (/brand-logos/{id}.{ext}), " +
  "which every page, widget and mail shows instead of a remote image. A new upload replaces the logo (a new address).";

export const createBrandingLogoOperation = defineOperation({
  name: "white-label.upload-logo",
  operationId: "createBrandingLogo",
  method: "post",
  path: "/v1/branding/logo",
  tags: ["White label"],
  summary: "Upload the tenant's logo (tenant_admin)",
  description: `${logoDescription} The tenant's override gets the logo; its other fields are kept.`,
  request: { form: LogoForm, bodyLimit: logoLimit },
  output: TenantBrandingSchema,
  errors: { ...stdErrors, 413: errors[413] },
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  idempotent: true,
  console: {},
  handler: async (ctx, input) => {
    await setBrandLogo(ctx, await tenantOwner(ctx), input.file);
    return getTenantBranding(ctx);
  },
});

export const createAgencyBrandingLogoOperation = defineOperation({
  name: "agency.upload-logo",
  operationId: "createAgencyBrandingLogo",
  context: "agency",
  method: "post",
  path: "/agency/agencies/{agencyId}/branding/logo",
  tags: ["White label"],
  summary: "Upload the agency's logo",
  description: `${logoDescription} The agency's brand must exist (PUT its name first): 404 otherwise.`,
  request: { params: AgencyIdParam, form: LogoForm, bodyLimit: logoLimit },
  output: WhiteLabelBrandSchema,
  errors: { ...stdErrorsWithNotFound, 413: errors[413] },
  scopes: [],
  access: "write",
  idempotent: true,
  handler: async (ctx, input) =>
    setBrandLogo(ctx, await agencyOwner(ctx.control, ctx.agencies, input.agencyId), input.file),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  getWhiteLabelOperation,
  createBrandingLogoOperation,
  createAgencyBrandingLogoOperation,
];
