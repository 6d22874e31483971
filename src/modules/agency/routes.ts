import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import {
  createRouter,
  errors,
  IdParam,
  json,
  jsonBody,
  paged,
  type Router,
  stdErrors,
  stdErrorsWithNotFound,
  tenantMovingResponse,
  USER_SECURITY,
} from "../../lib/openapi";
import { platformSvc } from "../../middleware/service-context";
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
import { agencyScopeOf } from "../tenants/scope";
import { createTenant, getTenantDetail, listTenants, updateTenant } from "../tenants/service";
import { AddTenantUserBody, TenantUserSchema, UserListQuery } from "../users/schemas";
import { addTenantUser, listTenantUsers } from "../users/service";
import { AgencyCampaignSchema, AgencyListQuery, AgencyLocationSchema, TenantIdParam } from "./schemas";
import { listAgencyCampaigns, listAgencyLocations, ownedTenantContext } from "./service";

const scope = (c: Context<AppEnv>) => agencyScopeOf(c.var.principal);
const owned = (c: Context<AppEnv>, tenantId: string) => ownedTenantContext(platformSvc(c), scope(c), tenantId);
/** a write into an owned tenant: fenced while it is being moved (503 TENANT_MOVING) */
const ownedForWrite = (c: Context<AppEnv>, tenantId: string) =>
  ownedTenantContext(platformSvc(c), scope(c), tenantId, { write: true });

const tags = ["Agency"];
const security = USER_SECURITY;
const notOwned = "A tenant the caller's agencies do not own is 404, like an unknown id.";

const createTenantRoute = createRoute({
  method: "post",
  path: "/agency/tenants",
  tags,
  security,
  summary: "Create a tenant and its default brand in one batch",
  operationId: "createAgencyTenant",
  description:
    "agencyId is required only when the caller administers several agencies; a platform admin without agencyId creates in the house agency. Duplicate slug: 409.",
  request: { body: jsonBody(CreateTenantBody) },
  responses: { 201: json(TenantDetailSchema, "Created"), ...stdErrors, 409: errors[409] },
});

const listTenantsRoute = createRoute({
  method: "get",
  path: "/agency/tenants",
  tags,
  security,
  summary: "Every tenant the caller's agencies own, newest first",
  operationId: "listAgencyTenants",
  request: { query: TenantListQuery },
  responses: { 200: json(paged(TenantWithCountsSchema).openapi("AgencyTenantPage")), ...stdErrors },
});

const getTenantRoute = createRoute({
  method: "get",
  path: "/agency/tenants/{id}",
  tags,
  security,
  summary: "An owned tenant with its brands",
  description: notOwned,
  operationId: "getAgencyTenant",
  request: { params: IdParam },
  responses: { 200: json(TenantDetailSchema), ...stdErrorsWithNotFound },
});

const updateTenantRoute = createRoute({
  method: "patch",
  path: "/agency/tenants/{id}",
  tags,
  security,
  summary: "Rename, change plan, pause or resume an owned tenant",
  operationId: "updateAgencyTenant",
  description: `isActive false pauses (pausedAt, pausedReason set): the tenant sends nothing and its own users become read-only; isActive true resumes and clears both. ${notOwned}`,
  request: { params: IdParam, body: jsonBody(UpdateTenantBody) },
  responses: { 200: json(TenantDetailSchema), ...stdErrorsWithNotFound, 503: tenantMovingResponse },
});

const listUsersRoute = createRoute({
  method: "get",
  path: "/agency/tenants/{id}/users",
  tags,
  security,
  summary: "Users of an owned tenant",
  description: notOwned,
  operationId: "listAgencyTenantUsers",
  request: { params: IdParam, query: UserListQuery },
  responses: { 200: json(paged(TenantUserSchema).openapi("AgencyTenantUserPage")), ...stdErrorsWithNotFound },
});

const addUserRoute = createRoute({
  method: "post",
  path: "/agency/tenants/{id}/users",
  tags,
  security,
  summary: "Add a user to an owned tenant with a role",
  operationId: "addAgencyTenantUser",
  description: `Without password the user is invited by email (7-day token for /auth/setup-password); with password the account is created ready to log in. An existing account is granted the role. ${notOwned}`,
  request: { params: IdParam, body: jsonBody(AddTenantUserBody) },
  responses: {
    201: json(TenantUserSchema, "Added"),
    ...stdErrorsWithNotFound,
    503: tenantMovingResponse,
    409: errors[409],
  },
});

const createLocationRoute = createRoute({
  method: "post",
  path: "/agency/tenants/{tenantId}/locations",
  tags,
  security,
  summary: "Create a location in an owned tenant",
  operationId: "createAgencyTenantLocation",
  description: `brandId defaults to the tenant's oldest active brand. ${notOwned}`,
  request: { params: TenantIdParam, body: jsonBody(CreateLocationBody) },
  responses: {
    201: json(LocationSchema, "Created"),
    ...stdErrorsWithNotFound,
    503: tenantMovingResponse,
    409: errors[409],
  },
});

const listLocationsRoute = createRoute({
  method: "get",
  path: "/agency/locations",
  tags,
  security,
  summary: "Locations across owned tenants, newest first, each with its tenant",
  operationId: "listAgencyLocations",
  request: { query: AgencyListQuery },
  responses: { 200: json(paged(AgencyLocationSchema).openapi("AgencyLocationPage")), ...stdErrorsWithNotFound },
});

const createCampaignRoute = createRoute({
  method: "post",
  path: "/agency/tenants/{tenantId}/campaigns",
  tags,
  security,
  summary: "Create a campaign in an owned tenant",
  operationId: "createAgencyTenantCampaign",
  description: `Same body and rules as POST /v1/campaigns. ${notOwned}`,
  request: { params: TenantIdParam, body: jsonBody(CreateCampaignBody) },
  responses: { 201: json(CampaignSchema, "Created"), ...stdErrorsWithNotFound, 503: tenantMovingResponse },
});

const listCampaignsRoute = createRoute({
  method: "get",
  path: "/agency/campaigns",
  tags,
  security,
  summary: "Campaigns across owned tenants, newest first, each with its tenant",
  operationId: "listAgencyCampaigns",
  request: { query: AgencyListQuery },
  responses: { 200: json(paged(AgencyCampaignSchema).openapi("AgencyCampaignPage")), ...stdErrorsWithNotFound },
});

export const agencyRoutes: Router = createRouter()
  .openapi(createTenantRoute, async (c) =>
    c.json(await createTenant(platformSvc(c), scope(c), c.req.valid("json")), 201),
  )
  .openapi(listTenantsRoute, async (c) => {
    // the shard a tenant is on is the platform's business (GET /admin/tenants shows it)
    const page = await listTenants(c.env, scope(c), c.req.valid("query"));
    return c.json({ ...page, data: page.data.map(({ shard: _shard, ...t }) => t) }, 200);
  })
  .openapi(getTenantRoute, async (c) => c.json(await getTenantDetail(c.env, scope(c), c.req.valid("param").id), 200))
  .openapi(updateTenantRoute, async (c) =>
    c.json(await updateTenant(platformSvc(c), scope(c), c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(listUsersRoute, async (c) =>
    c.json(await listTenantUsers(await owned(c, c.req.valid("param").id), c.req.valid("query")), 200),
  )
  .openapi(addUserRoute, async (c) =>
    c.json(await addTenantUser(await ownedForWrite(c, c.req.valid("param").id), c.req.valid("json")), 201),
  )
  .openapi(createLocationRoute, async (c) =>
    c.json(await createLocation(await ownedForWrite(c, c.req.valid("param").tenantId), c.req.valid("json")), 201),
  )
  .openapi(listLocationsRoute, async (c) =>
    c.json(await listAgencyLocations(c.env, scope(c), c.req.valid("query")), 200),
  )
  .openapi(createCampaignRoute, async (c) =>
    c.json(await createCampaign(await ownedForWrite(c, c.req.valid("param").tenantId), c.req.valid("json")), 201),
  )
  .openapi(listCampaignsRoute, async (c) =>
    c.json(await listAgencyCampaigns(c.env, scope(c), c.req.valid("query")), 200),
  );
