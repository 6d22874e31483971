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
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canAdminister } from "../../middleware/tenant";
import { InviteUserBody, SetRolesBody, TenantUserSchema, UpdateUserBody, UserListQuery } from "./schemas";
import {
  addTenantUser,
  getTenantUser,
  listTenantUsers,
  removeTenantUser,
  resendTenantInvite,
  revokeTenantInvite,
  setTenantUserRoles,
  updateTenantUser,
} from "./service";

const tags = ["Users"];
const admin = [canAdminister];

const list = createRoute({
  method: "get",
  path: "/v1/users",
  tags,
  security: TENANT_SECURITY,
  summary: "Users with a role in this tenant, newest first",
  operationId: "listUsers",
  request: { query: UserListQuery },
  responses: { 200: json(paged(TenantUserSchema).openapi("TenantUserPage")), ...stdErrors },
});

const get = createRoute({
  method: "get",
  path: "/v1/users/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Get a user of this tenant",
  operationId: "getUser",
  request: { params: IdParam },
  responses: { 200: json(TenantUserSchema), ...stdErrorsWithNotFound },
});

const invite = createRoute({
  method: "post",
  path: "/v1/users/invite",
  tags,
  security: TENANT_SECURITY,
  middleware: admin,
  operationId: "inviteUser",
  summary: "Invite a user with a role (tenant_admin)",
  description:
    "A new account gets an email with an invite token (7 days, single use) for POST /auth/setup-password. An existing account is granted the role and told by email. Already a member: 409.",
  request: { body: jsonBody(InviteUserBody) },
  responses: { 201: json(TenantUserSchema, "Invited"), ...stdErrors, 409: errors[409] },
});

const resendInvite = createRoute({
  method: "post",
  path: "/v1/users/{id}/invite/resend",
  tags,
  security: TENANT_SECURITY,
  middleware: admin,
  operationId: "resendUserInvite",
  summary: "Resend a pending invite with a fresh token (tenant_admin)",
  description:
    "Mails the person a new invite token (7 days, single use) through the platform's sender; the earlier tokens of this tenant's invite stop working. Not a member here: 404. Already accepted (a password is set) or a deactivated account: 409.",
  request: { params: IdParam },
  responses: { 200: json(TenantUserSchema, "Invite sent again"), ...stdErrorsWithNotFound, 409: errors[409] },
});

const revokeInvite = createRoute({
  method: "delete",
  path: "/v1/users/{id}/invite",
  tags,
  security: TENANT_SECURITY,
  middleware: admin,
  operationId: "revokeUserInvite",
  summary: "Revoke a pending invite (tenant_admin)",
  description:
    "The invite's token stops working (POST /auth/setup-password answers INVALID_TOKEN) and the roles it granted here are removed. An invite the person holds from another tenant is untouched. Not a member here: 404. Already accepted: 409 (DELETE /v1/users/{id} removes a member).",
  request: { params: IdParam },
  responses: { 204: { description: "Revoked" }, ...stdErrorsWithNotFound, 409: errors[409] },
});

const update = createRoute({
  method: "patch",
  path: "/v1/users/{id}",
  tags,
  security: TENANT_SECURITY,
  middleware: admin,
  operationId: "updateUser",
  summary: "Rename, deactivate or reactivate a user homed in this tenant (tenant_admin)",
  request: { params: IdParam, body: jsonBody(UpdateUserBody) },
  responses: { 200: json(TenantUserSchema), ...stdErrorsWithNotFound },
});

const setRoles = createRoute({
  method: "put",
  path: "/v1/users/{id}/roles",
  tags,
  security: TENANT_SECURITY,
  middleware: admin,
  operationId: "updateUserRoles",
  summary: "Replace the user's roles in this tenant (tenant_admin)",
  request: { params: IdParam, body: jsonBody(SetRolesBody) },
  responses: { 200: json(TenantUserSchema), ...stdErrorsWithNotFound },
});

const remove = createRoute({
  method: "delete",
  path: "/v1/users/{id}",
  tags,
  security: TENANT_SECURITY,
  middleware: admin,
  operationId: "deleteUser",
  summary: "Deactivate a user (tenant_admin)",
  description:
    "An account homed in this tenant is deactivated: it can no longer log in and its tokens stop working. An account homed elsewhere only loses its roles here.",
  request: { params: IdParam },
  responses: { 204: { description: "Deactivated" }, ...stdErrorsWithNotFound },
});

export const userRoutes: Router = createRouter()
  .openapi(list, async (c) => c.json(await listTenantUsers(svc(c), c.req.valid("query")), 200))
  .openapi(invite, async (c) => c.json(await addTenantUser(svc(c), c.req.valid("json")), 201))
  .openapi(resendInvite, async (c) => c.json(await resendTenantInvite(svc(c), c.req.valid("param").id), 200))
  .openapi(revokeInvite, async (c) => {
    await revokeTenantInvite(svc(c), c.req.valid("param").id);
    return c.body(null, 204);
  })
  .openapi(get, async (c) => c.json(await getTenantUser(svc(c), c.req.valid("param").id), 200))
  .openapi(update, async (c) =>
    c.json(await updateTenantUser(svc(c), c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(setRoles, async (c) =>
    c.json(await setTenantUserRoles(svc(c), c.req.valid("param").id, c.req.valid("json").roles), 200),
  )
  .openapi(remove, async (c) => {
    await removeTenantUser(svc(c), c.req.valid("param").id);
    return c.body(null, 204);
  });
