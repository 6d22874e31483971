import { errors, IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, noContent, type Operation } from "../../lib/operation";
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

// The tenant's users in the catalogue (src/lib/operation.ts): reads for any member, changes for the
// tenant_admin; closed to API keys (no scope admits them: identity/scopes.ts). A tenant admin changes only
// the roles this tenant grants, never a person's platform or agency roles (users/authority.ts).

const tags = ["Users"];

export const listUsersOperation = defineOperation({
  name: "user.list",
  operationId: "listUsers",
  method: "get",
  path: "/v1/users",
  tags,
  summary: "Users with a role in this tenant, newest first",
  request: { query: UserListQuery },
  output: paged(TenantUserSchema).openapi("TenantUserPage"),
  errors: stdErrors,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => listTenantUsers(ctx, input),
});

export const getUserOperation = defineOperation({
  name: "user.get",
  operationId: "getUser",
  method: "get",
  path: "/v1/users/{id}",
  tags,
  summary: "Get a user of this tenant",
  request: { params: IdParam },
  output: TenantUserSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => getTenantUser(ctx, input.id),
});

export const inviteUserOperation = defineOperation({
  name: "user.invite",
  operationId: "inviteUser",
  method: "post",
  path: "/v1/users/invite",
  tags,
  summary: "Invite a user with a role (tenant_admin)",
  description:
    "A new account gets an email with an invite token (7 days, single use) for POST /auth/setup-password. An existing account is granted the role and told by email. Already a member: 409.",
  request: { body: InviteUserBody },
  status: 201,
  statusText: "Invited",
  output: TenantUserSchema,
  errors: { ...stdErrors, 409: errors[409] },
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  console: {},
  handler: async (ctx, input) => addTenantUser(ctx, input),
});

export const resendUserInviteOperation = defineOperation({
  name: "user.resend-invite",
  operationId: "resendUserInvite",
  method: "post",
  path: "/v1/users/{id}/invite/resend",
  tags,
  summary: "Resend a pending invite with a fresh token (tenant_admin)",
  description:
    "Mails the person a new invite token (7 days, single use) through the platform's sender; the earlier tokens of this tenant's invite stop working. Not a member here: 404. Already accepted (a password is set) or a deactivated account: 409.",
  request: { params: IdParam },
  statusText: "Invite sent again",
  output: TenantUserSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  console: {},
  handler: async (ctx, input) => resendTenantInvite(ctx, input.id),
});

export const revokeUserInviteOperation = defineOperation({
  name: "user.revoke-invite",
  operationId: "revokeUserInvite",
  method: "delete",
  path: "/v1/users/{id}/invite",
  tags,
  summary: "Revoke a pending invite (tenant_admin)",
  description:
    "The invite's token stops working (POST /auth/setup-password answers INVALID_TOKEN) and the roles it granted here are removed. An invite the person holds from another tenant is untouched. Not a member here: 404. Already accepted: 409 (DELETE /v1/users/{id} removes a member).",
  request: { params: IdParam },
  status: 204,
  statusText: "Revoked",
  output: noContent,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  destructive: true,
  console: {},
  handler: async (ctx, input) => {
    await revokeTenantInvite(ctx, input.id);
  },
});

export const updateUserOperation = defineOperation({
  name: "user.update",
  operationId: "updateUser",
  method: "patch",
  path: "/v1/users/{id}",
  tags,
  summary: "Rename, deactivate or reactivate a user homed in this tenant (tenant_admin)",
  request: { params: IdParam, body: UpdateUserBody },
  output: TenantUserSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  console: {},
  handler: async (ctx, { id, ...body }) => updateTenantUser(ctx, id, body),
});

export const updateUserRolesOperation = defineOperation({
  name: "user.set-roles",
  operationId: "updateUserRoles",
  method: "put",
  path: "/v1/users/{id}/roles",
  tags,
  summary: "Replace the user's roles in this tenant (tenant_admin)",
  request: { params: IdParam, body: SetRolesBody },
  output: TenantUserSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  idempotent: true,
  console: {},
  handler: async (ctx, input) => setTenantUserRoles(ctx, input.id, input.roles),
});

export const deleteUserOperation = defineOperation({
  name: "user.remove",
  operationId: "deleteUser",
  method: "delete",
  path: "/v1/users/{id}",
  tags,
  summary: "Deactivate a user (tenant_admin)",
  description:
    "An account homed in this tenant is deactivated: it can no longer log in and its tokens stop working. An account homed elsewhere only loses its roles here.",
  request: { params: IdParam },
  status: 204,
  statusText: "Deactivated",
  output: noContent,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  destructive: true,
  console: {},
  handler: async (ctx, input) => {
    await removeTenantUser(ctx, input.id);
  },
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  listUsersOperation,
  getUserOperation,
  inviteUserOperation,
  resendUserInviteOperation,
  revokeUserInviteOperation,
  updateUserOperation,
  updateUserRolesOperation,
  deleteUserOperation,
];
