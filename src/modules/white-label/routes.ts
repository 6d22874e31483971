import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import {
  createRouter,
  errors,
  json,
  jsonBody,
  type Router,
  stdErrors,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
  USER_SECURITY,
} from "../../lib/openapi";
import { platformSvc, svc } from "../../middleware/service-context";
import { canAdminister } from "../../middleware/tenant";
import { agencyScopeOf } from "../tenants/scope";
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

const tags = ["White label"];
const upstreamError = { description: "Cloudflare failed (UPSTREAM_ERROR)", content: errors[409].content };
const notOwned = "An agency the caller does not administer is 404, like an unknown id.";
const hostingNote =
  "Create a CNAME from the hostname to the platform's target (dns.cname) and the platform's ownership TXT record (dns.verification); " +
  "Cloudflare then validates and issues the certificate. Links and pages use the hostname once status and sslStatus are both active " +
  "and ownership is verified (a sweep re-checks pending hostnames every 5 minutes; refresh asks at once). " +
  "The hostname is stored lower-case, in punycode, without a trailing dot. Another owner's unverified claim of the name blocks nothing: " +
  "the first claimant to publish its TXT record wins, and a name whose ownership another owner proved is 409. At most 3 unverified claims " +
  "per owner (409). An unverified claim is removed 7 days after the owner first claimed the name; deleting and claiming again keeps that " +
  "time and the TXT record, and once it has passed a claim is accepted only with the TXT record already published (409 naming it). " +
  "Without Cloudflare credentials configured: 409. Provider failure: 502.";

/**
 * White-label brands and custom hostnames are control-plane rows (looked up by host before the
 * tenant is known, docs/scaling.md): the services act on the control database; a tenant route's
 * context keeps the tenant's shard, where its audit rows go.
 */
const agencyOwnerOf = (c: Context<AppEnv>) =>
  agencyOwner(c.var.control, agencyScopeOf(c.var.principal), c.req.param("agencyId")!);

// ---- agency hostnames ----

const listAgencyHostnamesRoute = createRoute({
  method: "get",
  path: "/agency/agencies/{agencyId}/hostnames",
  tags,
  security: USER_SECURITY,
  summary: "The agency's custom hostnames, oldest first",
  operationId: "listAgencyHostnames",
  description: `The oldest active one is the host of every link of the agency's tenants that have no active hostname of their own. ${notOwned}`,
  request: { params: AgencyIdParam },
  responses: { 200: json(CustomHostnameListSchema), ...stdErrorsWithNotFound },
});

const createAgencyHostnameRoute = createRoute({
  method: "post",
  path: "/agency/agencies/{agencyId}/hostnames",
  tags,
  security: USER_SECURITY,
  summary: "Add a custom hostname for the agency",
  operationId: "createAgencyHostname",
  description: `${hostingNote} ${notOwned}`,
  request: { params: AgencyIdParam, body: jsonBody(CreateHostnameBody) },
  responses: {
    201: json(CustomHostnameSchema, "Created"),
    ...stdErrorsWithNotFound,
    409: errors[409],
    502: upstreamError,
  },
});

const getAgencyHostnameRoute = createRoute({
  method: "get",
  path: "/agency/agencies/{agencyId}/hostnames/{id}",
  tags,
  security: USER_SECURITY,
  summary: "A custom hostname of the agency",
  operationId: "getAgencyHostname",
  request: { params: AgencyHostnameParams },
  responses: { 200: json(CustomHostnameSchema), ...stdErrorsWithNotFound },
});

const refreshAgencyHostnameRoute = createRoute({
  method: "post",
  path: "/agency/agencies/{agencyId}/hostnames/{id}/refresh",
  tags,
  security: USER_SECURITY,
  summary: "Check the hostname's status with Cloudflare now",
  operationId: "refreshAgencyHostname",
  request: { params: AgencyHostnameParams },
  responses: { 200: json(CustomHostnameSchema), ...stdErrorsWithNotFound, 409: errors[409], 502: upstreamError },
});

const deleteAgencyHostnameRoute = createRoute({
  method: "delete",
  path: "/agency/agencies/{agencyId}/hostnames/{id}",
  tags,
  security: USER_SECURITY,
  summary: "Remove a custom hostname (from Cloudflare too)",
  operationId: "deleteAgencyHostname",
  request: { params: AgencyHostnameParams },
  responses: { 204: { description: "Removed" }, ...stdErrorsWithNotFound, 409: errors[409], 502: upstreamError },
});

// ---- tenant ----

const listTenantHostnamesRoute = createRoute({
  method: "get",
  path: "/v1/hostnames",
  tags,
  security: TENANT_SECURITY,
  summary: "The tenant's own custom hostnames, oldest first",
  operationId: "listHostnames",
  description: "The oldest active one is the host of the tenant's links; without one, its agency's.",
  responses: { 200: json(CustomHostnameListSchema), ...stdErrors },
});

const createTenantHostnameRoute = createRoute({
  method: "post",
  path: "/v1/hostnames",
  tags,
  security: TENANT_SECURITY,
  summary: "Add a custom hostname for the tenant (tenant_admin)",
  operationId: "createHostname",
  description: hostingNote,
  middleware: [canAdminister] as const,
  request: { body: jsonBody(CreateHostnameBody) },
  responses: { 201: json(CustomHostnameSchema, "Created"), ...stdErrors, 409: errors[409], 502: upstreamError },
});

const getTenantHostnameRoute = createRoute({
  method: "get",
  path: "/v1/hostnames/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "A custom hostname of the tenant",
  operationId: "getHostname",
  request: { params: HostnameIdParam },
  responses: { 200: json(CustomHostnameSchema), ...stdErrorsWithNotFound },
});

const refreshTenantHostnameRoute = createRoute({
  method: "post",
  path: "/v1/hostnames/{id}/refresh",
  tags,
  security: TENANT_SECURITY,
  summary: "Check the hostname's status with Cloudflare now (tenant_admin)",
  operationId: "refreshHostname",
  middleware: [canAdminister] as const,
  request: { params: HostnameIdParam },
  responses: { 200: json(CustomHostnameSchema), ...stdErrorsWithNotFound, 409: errors[409], 502: upstreamError },
});

const deleteTenantHostnameRoute = createRoute({
  method: "delete",
  path: "/v1/hostnames/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Remove a custom hostname (tenant_admin)",
  operationId: "deleteHostname",
  middleware: [canAdminister] as const,
  request: { params: HostnameIdParam },
  responses: { 204: { description: "Removed" }, ...stdErrorsWithNotFound, 409: errors[409], 502: upstreamError },
});

export const whiteLabelRoutes: Router = createRouter()
  .openapi(listAgencyHostnamesRoute, async (c) =>
    c.json(await listHostnames(c.var.control, c.env, await agencyOwnerOf(c)), 200),
  )
  .openapi(createAgencyHostnameRoute, async (c) =>
    c.json(await createHostname(platformSvc(c), await agencyOwnerOf(c), c.req.valid("json").hostname), 201),
  )
  .openapi(getAgencyHostnameRoute, async (c) =>
    c.json(await getHostname(c.var.control, c.env, await agencyOwnerOf(c), c.req.valid("param").id), 200),
  )
  .openapi(refreshAgencyHostnameRoute, async (c) =>
    c.json(await refreshHostname(platformSvc(c), await agencyOwnerOf(c), c.req.valid("param").id), 200),
  )
  .openapi(deleteAgencyHostnameRoute, async (c) => {
    await deleteHostname(platformSvc(c), await agencyOwnerOf(c), c.req.valid("param").id);
    return c.body(null, 204);
  })
  .openapi(listTenantHostnamesRoute, async (c) =>
    c.json(await listHostnames(c.var.control, c.env, await tenantOwner(svc(c))), 200),
  )
  .openapi(createTenantHostnameRoute, async (c) =>
    c.json(await createHostname(svc(c), await tenantOwner(svc(c)), c.req.valid("json").hostname), 201),
  )
  .openapi(getTenantHostnameRoute, async (c) =>
    c.json(await getHostname(c.var.control, c.env, await tenantOwner(svc(c)), c.req.valid("param").id), 200),
  )
  .openapi(refreshTenantHostnameRoute, async (c) =>
    c.json(await refreshHostname(svc(c), await tenantOwner(svc(c)), c.req.valid("param").id), 200),
  )
  .openapi(deleteTenantHostnameRoute, async (c) => {
    await deleteHostname(svc(c), await tenantOwner(svc(c)), c.req.valid("param").id);
    return c.body(null, 204);
  });
