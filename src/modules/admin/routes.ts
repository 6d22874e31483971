import { createRoute } from "@hono/zod-openapi";
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
import { AdminAuditListQuery, AuditEventSchema } from "../audit/schemas";
import { listAuditEventsAcrossShards } from "../audit/service";
import { AdminTenantSchema, TenantDetailSchema, TenantListQuery, UpdateTenantBody } from "../tenants/schemas";
import { getTenantDetail, listTenants, updateTenant } from "../tenants/service";
import { addAgencyAdmin, createAgency, listAgencies } from "./agencies.service";
import {
  AddAgencyAdminBody,
  AgencyAdminGrantSchema,
  AgencyListQuery,
  AgencySchema,
  CreateAgencyBody,
  CreatedAgencySchema,
  MoveTenantBody,
  TenantMoveListSchema,
  TenantMoveSchema,
} from "./schemas";
import { getTenantMove, listTenantMoves, startTenantMove } from "./tenant-move.service";

const tags = ["Admin"];
const security = USER_SECURITY;

const createAgencyRoute = createRoute({
  method: "post",
  path: "/admin/agencies",
  tags,
  security,
  summary: "Create an agency (platform_admin)",
  operationId: "createAdminAgency",
  description:
    "With adminEmail, the first agency_admin is provisioned in the same batch: a new account is emailed an invite (7 days); an existing account is granted the role.",
  request: { body: jsonBody(CreateAgencyBody) },
  responses: { 201: json(CreatedAgencySchema, "Created"), ...stdErrors, 409: errors[409] },
});

const addAdminRoute = createRoute({
  method: "post",
  path: "/admin/agencies/{id}/admins",
  tags,
  security,
  summary: "Grant another agency_admin (platform_admin)",
  operationId: "addAdminAgencyAdmin",
  request: { params: IdParam, body: jsonBody(AddAgencyAdminBody) },
  responses: { 201: json(AgencyAdminGrantSchema, "Granted"), ...stdErrorsWithNotFound, 409: errors[409] },
});

const listAgenciesRoute = createRoute({
  method: "get",
  path: "/admin/agencies",
  tags,
  security,
  summary: "List agencies, newest first (platform_admin)",
  operationId: "listAdminAgencies",
  request: { query: AgencyListQuery },
  responses: { 200: json(paged(AgencySchema).openapi("AgencyPage")), ...stdErrors },
});

const listTenantsRoute = createRoute({
  method: "get",
  path: "/admin/tenants",
  tags,
  security,
  summary: "Every tenant with _count and its shard, newest first; search by name or slug (platform_admin)",
  operationId: "listAdminTenants",
  request: { query: TenantListQuery },
  responses: { 200: json(paged(AdminTenantSchema).openapi("AdminTenantPage")), ...stdErrors },
});

const getTenantRoute = createRoute({
  method: "get",
  path: "/admin/tenants/{id}",
  tags,
  security,
  summary: "A tenant with brands, emailConfig and _count (platform_admin)",
  operationId: "getAdminTenant",
  request: { params: IdParam },
  responses: { 200: json(TenantDetailSchema), ...stdErrorsWithNotFound },
});

const updateTenantRoute = createRoute({
  method: "patch",
  path: "/admin/tenants/{id}",
  tags,
  security,
  summary: "Rename, change plan, pause or resume a tenant (platform_admin)",
  operationId: "updateAdminTenant",
  request: { params: IdParam, body: jsonBody(UpdateTenantBody) },
  responses: { 200: json(TenantDetailSchema), ...stdErrorsWithNotFound, 503: tenantMovingResponse },
});

const moveTenantRoute = createRoute({
  method: "post",
  path: "/admin/tenants/{id}/move",
  tags,
  security,
  summary: "Move a tenant to another shard, in the background (platform_admin)",
  operationId: "moveAdminTenant",
  description:
    "Fences the tenant's writes (503 TENANT_MOVING + Retry-After) and answers 202 with the move; the JOBS queue then copies every tenant-owned row in slices, verifies row counts and chunked checksums per table, flips the directory, and deletes the source rows. A failure before the flip leaves the tenant on its shard (copy removed, fence lifted). Follow it at GET /admin/tenant-moves/{id} (docs/scaling.md).",
  request: { params: IdParam, body: jsonBody(MoveTenantBody) },
  responses: {
    202: json(TenantMoveSchema, "Accepted: the move is fenced and queued"),
    ...stdErrorsWithNotFound,
    409: errors[409],
  },
});

const getMoveRoute = createRoute({
  method: "get",
  path: "/admin/tenant-moves/{id}",
  tags,
  security,
  summary: "A tenant move's state and progress (platform_admin)",
  operationId: "getAdminTenantMove",
  request: { params: IdParam },
  responses: { 200: json(TenantMoveSchema), ...stdErrorsWithNotFound },
});

const listMovesRoute = createRoute({
  method: "get",
  path: "/admin/tenants/{id}/moves",
  tags,
  security,
  summary: "A tenant's moves, newest first, the last 50 (platform_admin)",
  operationId: "listAdminTenantMoves",
  request: { params: IdParam },
  responses: { 200: json(TenantMoveListSchema), ...stdErrorsWithNotFound },
});

const auditRoute = createRoute({
  method: "get",
  path: "/admin/audit-events",
  tags,
  security,
  summary: "Audit events across tenants, newest first (platform_admin)",
  operationId: "listAdminAuditEvents",
  request: { query: AdminAuditListQuery },
  responses: { 200: json(paged(AuditEventSchema).openapi("AdminAuditEventPage")), ...stdErrors },
});

export const adminRoutes: Router = createRouter()
  .openapi(createAgencyRoute, async (c) => c.json(await createAgency(platformSvc(c), c.req.valid("json")), 201))
  .openapi(addAdminRoute, async (c) =>
    c.json(await addAgencyAdmin(platformSvc(c), c.req.valid("param").id, c.req.valid("json")), 201),
  )
  .openapi(listAgenciesRoute, async (c) => c.json(await listAgencies(platformSvc(c), c.req.valid("query")), 200))
  .openapi(listTenantsRoute, async (c) => c.json(await listTenants(c.env, "all", c.req.valid("query")), 200))
  .openapi(getTenantRoute, async (c) => c.json(await getTenantDetail(c.env, "all", c.req.valid("param").id), 200))
  .openapi(updateTenantRoute, async (c) =>
    c.json(await updateTenant(platformSvc(c), "all", c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(moveTenantRoute, async (c) =>
    c.json(await startTenantMove(platformSvc(c), c.req.valid("param").id, c.req.valid("json").shard), 202),
  )
  .openapi(getMoveRoute, async (c) => c.json(await getTenantMove(c.env, c.req.valid("param").id), 200))
  .openapi(listMovesRoute, async (c) => c.json(await listTenantMoves(c.env, c.req.valid("param").id), 200))
  .openapi(auditRoute, async (c) => c.json(await listAuditEventsAcrossShards(c.env, c.req.valid("query")), 200));
