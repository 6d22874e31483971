import { errors, IdParam, paged, stdErrors, stdErrorsWithNotFound, tenantMovingResponse } from "../../lib/openapi";
import { defineOperation } from "../../lib/operation";
import { AdminAuditListQuery, AuditEventSchema } from "../audit/schemas";
import { listAuditEventsAcrossShards } from "../audit/service";
import { AdminTenantSchema, TenantDetailSchema, TenantListQuery, UpdateTenantBody } from "../tenants/schemas";
import { getTenantDetail, listTenants, updateTenant } from "../tenants/service";
import { MoveTenantBody, TenantMoveListSchema, TenantMoveSchema } from "./schemas";
import { getTenantMove, listTenantMoves, startTenantMove } from "./tenant-move.service";

// The platform admin's view of every tenant (/admin, platform_admin): list, read, change, move between
// shards, and the audit log across tenants. API keys never reach /admin (scopes: []).

const tags = ["Admin"];

export const listAdminTenantsOperation = defineOperation({
  name: "platform.list-tenants",
  context: "platform",
  operationId: "listAdminTenants",
  method: "get",
  path: "/admin/tenants",
  tags,
  summary: "Every tenant with _count and its shard, newest first; search by name or slug (platform_admin)",
  request: { query: TenantListQuery },
  output: paged(AdminTenantSchema).openapi("AdminTenantPage"),
  errors: stdErrors,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => listTenants(ctx.env, "all", input),
});

export const getAdminTenantOperation = defineOperation({
  name: "platform.get-tenant",
  context: "platform",
  operationId: "getAdminTenant",
  method: "get",
  path: "/admin/tenants/{id}",
  tags,
  summary: "A tenant with brands, emailConfig and _count (platform_admin)",
  request: { params: IdParam },
  output: TenantDetailSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => getTenantDetail(ctx.env, "all", input.id),
});

export const updateAdminTenantOperation = defineOperation({
  name: "platform.update-tenant",
  context: "platform",
  operationId: "updateAdminTenant",
  method: "patch",
  path: "/admin/tenants/{id}",
  tags,
  summary: "Rename, change plan, pause or resume a tenant (platform_admin)",
  request: { params: IdParam, body: UpdateTenantBody },
  output: TenantDetailSchema,
  errors: { ...stdErrorsWithNotFound, 503: tenantMovingResponse },
  scopes: [],
  access: "write",
  console: {},
  handler: async (ctx, { id, ...body }) => updateTenant(ctx, "all", id, body),
});

export const moveAdminTenantOperation = defineOperation({
  name: "platform.move-tenant",
  context: "platform",
  operationId: "moveAdminTenant",
  method: "post",
  path: "/admin/tenants/{id}/move",
  tags,
  summary: "Move a tenant to another shard, in the background (platform_admin)",
  description:
    "Fences the tenant's writes (503 TENANT_MOVING + Retry-After) and answers 202 with the move; the JOBS queue then copies every tenant-owned row in slices, verifies row counts and chunked checksums per table, flips the directory, and deletes the source rows. A failure before the flip leaves the tenant on its shard (copy removed, fence lifted). Follow it at GET /admin/tenant-moves/{id} (docs/scaling.md).",
  request: { params: IdParam, body: MoveTenantBody },
  status: 202,
  statusText: "Accepted: the move is fenced and queued",
  output: TenantMoveSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: [],
  access: "write",
  console: {},
  handler: async (ctx, input) => startTenantMove(ctx, input.id, input.shard),
});

export const getAdminTenantMoveOperation = defineOperation({
  name: "platform.get-tenant-move",
  context: "platform",
  operationId: "getAdminTenantMove",
  method: "get",
  path: "/admin/tenant-moves/{id}",
  tags,
  summary: "A tenant move's state and progress (platform_admin)",
  request: { params: IdParam },
  output: TenantMoveSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => getTenantMove(ctx.env, input.id),
});

export const listAdminTenantMovesOperation = defineOperation({
  name: "platform.list-tenant-moves",
  context: "platform",
  operationId: "listAdminTenantMoves",
  method: "get",
  path: "/admin/tenants/{id}/moves",
  tags,
  summary: "A tenant's moves, newest first, the last 50 (platform_admin)",
  request: { params: IdParam },
  output: TenantMoveListSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => listTenantMoves(ctx.env, input.id),
});

export const listAdminAuditEventsOperation = defineOperation({
  name: "platform.list-audit-events",
  context: "platform",
  operationId: "listAdminAuditEvents",
  method: "get",
  path: "/admin/audit-events",
  tags,
  summary: "Audit events across tenants, newest first (platform_admin)",
  request: { query: AdminAuditListQuery },
  output: paged(AuditEventSchema).openapi("AdminAuditEventPage"),
  errors: stdErrors,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => listAuditEventsAcrossShards(ctx.env, input),
});

export const tenantOperations = [
  listAdminTenantsOperation,
  getAdminTenantOperation,
  updateAdminTenantOperation,
  moveAdminTenantOperation,
  getAdminTenantMoveOperation,
  listAdminTenantMovesOperation,
  listAdminAuditEventsOperation,
];
