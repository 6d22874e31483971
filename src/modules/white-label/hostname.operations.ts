import { errors, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, noContent, type Operation } from "../../lib/operation";
import { createHostname, deleteHostname, getHostname, listHostnames, refreshHostname } from "./hostnames";
import {
  AgencyHostnameParams,
  AgencyIdParam,
  CreateHostnameBody,
  CustomHostnameListSchema,
  CustomHostnameSchema,
  HostnameIdParam,
} from "./schemas";
import { agencyOwner, tenantOwner } from "./service";

/*
 * Custom hostnames in the catalogue (src/lib/operation.ts), the tenant's (/v1/hostnames, tenant_admin to
 * change) and the agency's (/agency/agencies/{agencyId}/hostnames). The rows are control-plane rows; the
 * services act on ctx.control (docs/white-label.md "Custom hostnames").
 */

const tags = ["White label"];
const upstreamError = { description: "Cloudflare failed (UPSTREAM_ERROR)", content: errors[409].content };
/** An agency the caller does not administer is 404, like an unknown id. */
export const notOwned = "An agency the caller does not administer is 404, like an unknown id.";
const hostingNote =
  "Create a CNAME from the hostname to the platform's target (dns.cname) and the platform's ownership TXT record (dns.verification); " +
  "Cloudflare then validates and issues the certificate. Links and pages use the hostname once status and sslStatus are both active " +
  "and ownership is verified (a sweep re-checks pending hostnames every 5 minutes; refresh asks at once). " +
  "The hostname is stored lower-case, in punycode, without a trailing dot. Another owner's unverified claim of the name blocks nothing: " +
  "the first claimant to publish its TXT record wins, and a name whose ownership another owner proved is 409. At most 3 unverified claims " +
  "per owner (409). An unverified claim is removed 7 days after the owner first claimed the name; deleting and claiming again keeps that " +
  "time and the TXT record, and once it has passed a claim is accepted only with the TXT record already published (409 naming it). " +
  "Without Cloudflare credentials configured: 409. Provider failure: 502.";

// ---- the tenant's ----

export const listHostnamesOperation = defineOperation({
  name: "hostname.list",
  operationId: "listHostnames",
  method: "get",
  path: "/v1/hostnames",
  tags,
  summary: "The tenant's own custom hostnames, oldest first",
  description: "The oldest active one is the host of the tenant's links; without one, its agency's.",
  output: CustomHostnameListSchema,
  errors: stdErrors,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx) => listHostnames(ctx.control, ctx.env, await tenantOwner(ctx)),
});

export const createHostnameOperation = defineOperation({
  name: "hostname.create",
  operationId: "createHostname",
  method: "post",
  path: "/v1/hostnames",
  tags,
  summary: "Add a custom hostname for the tenant (tenant_admin)",
  description: hostingNote,
  request: { body: CreateHostnameBody },
  status: 201,
  output: CustomHostnameSchema,
  errors: { ...stdErrors, 409: errors[409], 502: upstreamError },
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  openWorld: true,
  console: {},
  handler: async (ctx, input) => createHostname(ctx, await tenantOwner(ctx), input.hostname),
});

export const getHostnameOperation = defineOperation({
  name: "hostname.get",
  operationId: "getHostname",
  method: "get",
  path: "/v1/hostnames/{id}",
  tags,
  summary: "A custom hostname of the tenant",
  request: { params: HostnameIdParam },
  output: CustomHostnameSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  handler: async (ctx, input) => getHostname(ctx.control, ctx.env, await tenantOwner(ctx), input.id),
});

export const refreshHostnameOperation = defineOperation({
  name: "hostname.refresh",
  operationId: "refreshHostname",
  method: "post",
  path: "/v1/hostnames/{id}/refresh",
  tags,
  summary: "Check the hostname's status with Cloudflare now (tenant_admin)",
  request: { params: HostnameIdParam },
  output: CustomHostnameSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409], 502: upstreamError },
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  idempotent: true,
  openWorld: true,
  console: { label: "Check again" },
  handler: async (ctx, input) => refreshHostname(ctx, await tenantOwner(ctx), input.id),
});

export const deleteHostnameOperation = defineOperation({
  name: "hostname.delete",
  operationId: "deleteHostname",
  method: "delete",
  path: "/v1/hostnames/{id}",
  tags,
  summary: "Remove a custom hostname (tenant_admin)",
  request: { params: HostnameIdParam },
  status: 204,
  statusText: "Removed",
  output: noContent,
  errors: { ...stdErrorsWithNotFound, 409: errors[409], 502: upstreamError },
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  destructive: true,
  openWorld: true,
  console: { label: "Remove" },
  handler: async (ctx, input) => deleteHostname(ctx, await tenantOwner(ctx), input.id),
});

// ---- the agency's ----

export const listAgencyHostnamesOperation = defineOperation({
  name: "agency.list-hostnames",
  operationId: "listAgencyHostnames",
  context: "agency",
  method: "get",
  path: "/agency/agencies/{agencyId}/hostnames",
  tags,
  summary: "The agency's custom hostnames, oldest first",
  description: `The oldest active one is the host of every link of the agency's tenants that have no active hostname of their own. ${notOwned}`,
  request: { params: AgencyIdParam },
  output: CustomHostnameListSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) =>
    listHostnames(ctx.control, ctx.env, await agencyOwner(ctx.control, ctx.agencies, input.agencyId)),
});

export const createAgencyHostnameOperation = defineOperation({
  name: "agency.create-hostname",
  operationId: "createAgencyHostname",
  context: "agency",
  method: "post",
  path: "/agency/agencies/{agencyId}/hostnames",
  tags,
  summary: "Add a custom hostname for the agency",
  description: `${hostingNote} ${notOwned}`,
  request: { params: AgencyIdParam, body: CreateHostnameBody },
  status: 201,
  output: CustomHostnameSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409], 502: upstreamError },
  scopes: [],
  access: "write",
  openWorld: true,
  console: {},
  handler: async (ctx, input) =>
    createHostname(ctx, await agencyOwner(ctx.control, ctx.agencies, input.agencyId), input.hostname),
});

export const getAgencyHostnameOperation = defineOperation({
  name: "agency.get-hostname",
  operationId: "getAgencyHostname",
  context: "agency",
  method: "get",
  path: "/agency/agencies/{agencyId}/hostnames/{id}",
  tags,
  summary: "A custom hostname of the agency",
  request: { params: AgencyHostnameParams },
  output: CustomHostnameSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  handler: async (ctx, input) =>
    getHostname(ctx.control, ctx.env, await agencyOwner(ctx.control, ctx.agencies, input.agencyId), input.id),
});

export const refreshAgencyHostnameOperation = defineOperation({
  name: "agency.refresh-hostname",
  operationId: "refreshAgencyHostname",
  context: "agency",
  method: "post",
  path: "/agency/agencies/{agencyId}/hostnames/{id}/refresh",
  tags,
  summary: "Check the hostname's status with Cloudflare now",
  request: { params: AgencyHostnameParams },
  output: CustomHostnameSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409], 502: upstreamError },
  scopes: [],
  access: "write",
  idempotent: true,
  openWorld: true,
  console: { label: "Check again" },
  handler: async (ctx, input) =>
    refreshHostname(ctx, await agencyOwner(ctx.control, ctx.agencies, input.agencyId), input.id),
});

export const deleteAgencyHostnameOperation = defineOperation({
  name: "agency.delete-hostname",
  operationId: "deleteAgencyHostname",
  context: "agency",
  method: "delete",
  path: "/agency/agencies/{agencyId}/hostnames/{id}",
  tags,
  summary: "Remove a custom hostname (from Cloudflare too)",
  request: { params: AgencyHostnameParams },
  status: 204,
  statusText: "Removed",
  output: noContent,
  errors: { ...stdErrorsWithNotFound, 409: errors[409], 502: upstreamError },
  scopes: [],
  access: "write",
  destructive: true,
  openWorld: true,
  console: { label: "Remove" },
  handler: async (ctx, input) =>
    deleteHostname(ctx, await agencyOwner(ctx.control, ctx.agencies, input.agencyId), input.id),
});

/** Spread into the module's `operations` (operations.ts). */
export const hostnameOperations: Operation[] = [
  listHostnamesOperation,
  createHostnameOperation,
  getHostnameOperation,
  refreshHostnameOperation,
  deleteHostnameOperation,
  listAgencyHostnamesOperation,
  createAgencyHostnameOperation,
  getAgencyHostnameOperation,
  refreshAgencyHostnameOperation,
  deleteAgencyHostnameOperation,
];
