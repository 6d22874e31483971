import { z } from "@hono/zod-openapi";
import { errors, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, noContent, type Operation } from "../../lib/operation";
import { hostnameOperations, notOwned } from "./hostname.operations";
import { LOGO_MAX_BYTES, setBrandLogo } from "./logos";
import {
  AgencyBrandBody,
  AgencyIdParam,
  TenantBrandBody,
  TenantBrandingSchema,
  WhiteLabelBrandSchema,
} from "./schemas";
import {
  agencyOwner,
  deleteAgencyBrand,
  deleteTenantBranding,
  getAgencyBrand,
  getTenantBranding,
  putAgencyBrand,
  putTenantBranding,
  tenantOwner,
} from "./service";

/*
 * The white label's operations in the catalogue (src/lib/operation.ts): brands here, custom hostnames in
 * hostname.operations.ts. Brands and hostnames are control-plane rows (looked up by host before the tenant
 * is known, docs/scaling.md): the services act on ctx.control; a tenant operation's context keeps the
 * tenant's shard, where its audit rows go.
 */

const tags = ["White label"];

// ---- the tenant's brand override ----

export const getBrandingOperation = defineOperation({
  name: "white-label.get-branding",
  operationId: "getBranding",
  method: "get",
  path: "/v1/branding",
  tags,
  summary: "The tenant's white label: its override, its agency's brand, the effective brand and link origin",
  output: TenantBrandingSchema,
  errors: stdErrors,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx) => getTenantBranding(ctx),
});

export const updateBrandingOperation = defineOperation({
  name: "white-label.update",
  operationId: "updateBranding",
  method: "put",
  path: "/v1/branding",
  tags,
  summary: "Set the tenant's brand override (tenant_admin)",
  description: "Replaces the override; a field left out or null inherits the agency's value (then the platform's).",
  request: { body: TenantBrandBody },
  output: TenantBrandingSchema,
  errors: stdErrors,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  destructive: true,
  idempotent: true,
  console: {},
  handler: async (ctx, input) => putTenantBranding(ctx, input),
});

export const deleteBrandingOperation = defineOperation({
  name: "white-label.delete",
  operationId: "deleteBranding",
  method: "delete",
  path: "/v1/branding",
  tags,
  summary: "Remove the tenant's brand override (tenant_admin)",
  status: 204,
  statusText: "Removed",
  output: noContent,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  destructive: true,
  console: { label: "Reset to the default brand" },
  handler: async (ctx) => deleteTenantBranding(ctx),
});

// ---- the agency's brand ----

export const getAgencyBrandingOperation = defineOperation({
  name: "agency.get-branding",
  operationId: "getAgencyBranding",
  context: "agency",
  method: "get",
  path: "/agency/agencies/{agencyId}/branding",
  tags,
  summary: "The agency's white-label brand",
  description: `404 when the agency has none (pages show the platform's). ${notOwned}`,
  request: { params: AgencyIdParam },
  output: WhiteLabelBrandSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) =>
    getAgencyBrand(ctx.control, await agencyOwner(ctx.control, ctx.agencies, input.agencyId)),
});

export const updateAgencyBrandingOperation = defineOperation({
  name: "agency.update-branding",
  operationId: "updateAgencyBranding",
  context: "agency",
  method: "put",
  path: "/agency/agencies/{agencyId}/branding",
  tags,
  summary: "Set the agency's white-label brand",
  description:
    "Replaces it: name (shown on every public page of the agency's tenants and as the sender name of account emails), logo (https only), " +
    `primary and accent colours (#rrggbb), support email (page and email footers). Tenants may override any field. ${notOwned}`,
  request: { params: AgencyIdParam, body: AgencyBrandBody },
  output: WhiteLabelBrandSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "write",
  destructive: true,
  idempotent: true,
  console: {},
  handler: async (ctx, { agencyId, ...brand }) =>
    putAgencyBrand(ctx, await agencyOwner(ctx.control, ctx.agencies, agencyId), brand),
});

export const deleteAgencyBrandingOperation = defineOperation({
  name: "agency.delete-branding",
  operationId: "deleteAgencyBranding",
  context: "agency",
  method: "delete",
  path: "/agency/agencies/{agencyId}/branding",
  tags,
  summary: "Remove the agency's brand (back to the platform's)",
  request: { params: AgencyIdParam },
  status: 204,
  statusText: "Removed",
  output: noContent,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "write",
  destructive: true,
  console: { label: "Reset to the platform's brand" },
  handler: async (ctx, input) => deleteAgencyBrand(ctx, await agencyOwner(ctx.control, ctx.agencies, input.agencyId)),
});

// ---- logos, and the assistants' read ----

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
  variantOf: {
    operationId: "getBranding",
    why: "the assistants' read, open to read:locations grants; GET /v1/branding is closed to API keys",
  },
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
  tags,
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
  tags,
  summary: "Upload the agency's logo",
  description: `${logoDescription} The agency's brand must exist (PUT its name first): 404 otherwise.`,
  request: { params: AgencyIdParam, form: LogoForm, bodyLimit: logoLimit },
  output: WhiteLabelBrandSchema,
  errors: { ...stdErrorsWithNotFound, 413: errors[413] },
  scopes: [],
  access: "write",
  idempotent: true,
  console: {},
  handler: async (ctx, input) =>
    setBrandLogo(ctx, await agencyOwner(ctx.control, ctx.agencies, input.agencyId), input.file),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  getBrandingOperation,
  updateBrandingOperation,
  deleteBrandingOperation,
  getAgencyBrandingOperation,
  updateAgencyBrandingOperation,
  deleteAgencyBrandingOperation,
  getWhiteLabelOperation,
  createBrandingLogoOperation,
  createAgencyBrandingLogoOperation,
  ...hostnameOperations,
];
