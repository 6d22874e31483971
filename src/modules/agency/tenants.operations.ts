import { errors, IdParam, paged, stdErrors, stdErrorsWithNotFound, tenantMovingResponse } from "../../lib/openapi";
import { defineOperation } from "../../lib/operation";
import { CampaignSchema, CreateCampaignBody } from "../campaigns/schemas";
import { createCampaign } from "../campaigns/service";
import { CreateLocationBody, LocationSchema } from "../locations/schemas";
import { createLocation } from "../locations/service";
import {
  CreateTenantBody,
  TenantDetailSchema,
  TenantListQuery,
  TenantWithCountsSchema,
  UpdateTenantBody,
} from "../tenants/schemas";
import { createTenant, getTenantDetail, listTenants, updateTenant } from "../tenants/service";
import { AddTenantUserBody, TenantUserSchema, UserListQuery } from "../users/schemas";
import { addTenantUser, listTenantUsers } from "../users/service";
import { AgencyCampaignSchema, AgencyListQuery, AgencyLocationSchema, TenantIdParam } from "./schemas";
import { listAgencyCampaigns, listAgencyLocations, ownedTenantContext } from "./service";

// The agency's tenants over REST (/agency, an agency admin or a platform admin): the handler acts only on
// tenants the caller's agencies own (ctx.agencies; "all" for a platform admin). Another agency's tenant is
// 404, like an unknown id (ownedTenantContext, tenants/service findScopedTenant). API keys never reach
// /agency (scopes: []).

const tags = ["Agency"];
const notOwned = "A tenant the caller's agencies do not own is 404, like an unknown id.";

export const createAgencyTenantOperation = defineOperation({
  name: "agency.create-tenant",
  context: "agency",
  operationId: "createAgencyTenant",
  method: "post",
  path: "/agency/tenants",
  tags,
  summary: "Create a tenant and its default brand in one batch",
  description:
    "agencyId is required only when the caller administers several agencies; a platform admin without agencyId creates in the house agency. Duplicate slug: 409.",
  request: { body: CreateTenantBody },
  status: 201,
  output: TenantDetailSchema,
  errors: { ...stdErrors, 409: errors[409] },
  scopes: [],
  access: "write",
  console: {},
  handler: async (ctx, input) => createTenant(ctx, ctx.agencies, input),
});

export const listAgencyTenantsOperation = defineOperation({
  name: "agency.list-tenant-page",
  context: "agency",
  operationId: "listAgencyTenants",
  method: "get",
  path: "/agency/tenants",
  tags,
  summary: "Every tenant the caller's agencies own, newest first",
  request: { query: TenantListQuery },
  output: paged(TenantWithCountsSchema).openapi("AgencyTenantPage"),
  errors: stdErrors,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => {
    // the shard a tenant is on is the platform's business (GET /admin/tenants shows it)
    const page = await listTenants(ctx.env, ctx.agencies, input);
    return { ...page, data: page.data.map(({ shard: _shard, ...t }) => t) };
  },
});

export const getAgencyTenantOperation = defineOperation({
  name: "agency.get-tenant",
  context: "agency",
  operationId: "getAgencyTenant",
  method: "get",
  path: "/agency/tenants/{id}",
  tags,
  summary: "An owned tenant with its brands",
  description: notOwned,
  request: { params: IdParam },
  output: TenantDetailSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => getTenantDetail(ctx.env, ctx.agencies, input.id),
});

export const updateAgencyTenantOperation = defineOperation({
  name: "agency.update-tenant",
  context: "agency",
  operationId: "updateAgencyTenant",
  method: "patch",
  path: "/agency/tenants/{id}",
  tags,
  summary: "Rename, change plan, pause or resume an owned tenant",
  description: `isActive false pauses (pausedAt, pausedReason set): the tenant sends nothing and its own users become read-only; isActive true resumes and clears both. ${notOwned}`,
  request: { params: IdParam, body: UpdateTenantBody },
  output: TenantDetailSchema,
  errors: { ...stdErrorsWithNotFound, 503: tenantMovingResponse },
  scopes: [],
  access: "write",
  console: {},
  handler: async (ctx, { id, ...body }) => updateTenant(ctx, ctx.agencies, id, body),
});

export const listAgencyTenantUsersOperation = defineOperation({
  name: "agency.list-tenant-users",
  context: "agency",
  operationId: "listAgencyTenantUsers",
  method: "get",
  path: "/agency/tenants/{id}/users",
  tags,
  summary: "Users of an owned tenant",
  description: notOwned,
  request: { params: IdParam, query: UserListQuery },
  output: paged(TenantUserSchema).openapi("AgencyTenantUserPage"),
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, { id, ...query }) => listTenantUsers(await ownedTenantContext(ctx, ctx.agencies, id), query),
});

export const addAgencyTenantUserOperation = defineOperation({
  name: "agency.add-tenant-user",
  context: "agency",
  operationId: "addAgencyTenantUser",
  method: "post",
  path: "/agency/tenants/{id}/users",
  tags,
  summary: "Add a user to an owned tenant with a role",
  description: `Without password the user is invited by email (7-day token for /auth/setup-password); with password the account is created ready to log in. An existing account is granted the role. ${notOwned}`,
  request: { params: IdParam, body: AddTenantUserBody },
  status: 201,
  statusText: "Added",
  output: TenantUserSchema,
  errors: { ...stdErrorsWithNotFound, 503: tenantMovingResponse, 409: errors[409] },
  scopes: [],
  access: "write",
  console: {},
  // a write into an owned tenant: fenced while it is being moved (503 TENANT_MOVING)
  handler: async (ctx, { id, ...body }) =>
    addTenantUser(await ownedTenantContext(ctx, ctx.agencies, id, { write: true }), body),
});

export const createAgencyTenantLocationOperation = defineOperation({
  name: "agency.create-tenant-location",
  context: "agency",
  operationId: "createAgencyTenantLocation",
  method: "post",
  path: "/agency/tenants/{tenantId}/locations",
  tags,
  summary: "Create a location in an owned tenant",
  description: `brandId defaults to the tenant's oldest active brand. ${notOwned}`,
  request: { params: TenantIdParam, body: CreateLocationBody },
  status: 201,
  output: LocationSchema,
  errors: { ...stdErrorsWithNotFound, 503: tenantMovingResponse, 409: errors[409] },
  scopes: [],
  access: "write",
  console: {},
  handler: async (ctx, { tenantId, ...body }) =>
    createLocation(await ownedTenantContext(ctx, ctx.agencies, tenantId, { write: true }), body),
});

export const listAgencyLocationsOperation = defineOperation({
  name: "agency.list-locations",
  context: "agency",
  operationId: "listAgencyLocations",
  method: "get",
  path: "/agency/locations",
  tags,
  summary: "Locations across owned tenants, newest first, each with its tenant",
  request: { query: AgencyListQuery },
  output: paged(AgencyLocationSchema).openapi("AgencyLocationPage"),
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => listAgencyLocations(ctx.env, ctx.agencies, input),
});

export const createAgencyTenantCampaignOperation = defineOperation({
  name: "agency.create-tenant-campaign",
  context: "agency",
  operationId: "createAgencyTenantCampaign",
  method: "post",
  path: "/agency/tenants/{tenantId}/campaigns",
  tags,
  summary: "Create a campaign in an owned tenant",
  description: `Same body and rules as POST /v1/campaigns. ${notOwned}`,
  request: { params: TenantIdParam, body: CreateCampaignBody },
  status: 201,
  output: CampaignSchema,
  errors: { ...stdErrorsWithNotFound, 503: tenantMovingResponse },
  scopes: [],
  access: "write",
  console: {},
  handler: async (ctx, { tenantId, ...body }) =>
    createCampaign(await ownedTenantContext(ctx, ctx.agencies, tenantId, { write: true }), body),
});

export const listAgencyCampaignsOperation = defineOperation({
  name: "agency.list-campaigns",
  context: "agency",
  operationId: "listAgencyCampaigns",
  method: "get",
  path: "/agency/campaigns",
  tags,
  summary: "Campaigns across owned tenants, newest first, each with its tenant",
  request: { query: AgencyListQuery },
  output: paged(AgencyCampaignSchema).openapi("AgencyCampaignPage"),
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => listAgencyCampaigns(ctx.env, ctx.agencies, input),
});

export const tenantOperations = [
  createAgencyTenantOperation,
  listAgencyTenantsOperation,
  getAgencyTenantOperation,
  updateAgencyTenantOperation,
  listAgencyTenantUsersOperation,
  addAgencyTenantUserOperation,
  createAgencyTenantLocationOperation,
  listAgencyLocationsOperation,
  createAgencyTenantCampaignOperation,
  listAgencyCampaignsOperation,
];
