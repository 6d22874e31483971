import { z } from "@hono/zod-openapi";
import { unauthenticated } from "../../lib/errors";
import { errors, paged, stdErrors } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { reachableTenants } from "../tenants/reachable";
import { ReachableTenantQuery, ReachableTenantSchema } from "../tenants/schemas";
import { getMe, updateMyProfile } from "./me.service";
import { changePassword } from "./password.service";
import { ChangePasswordBody, LoginResponse, MeResponse, UpdateMeBody } from "./schemas";

// The signed-in person's own account under /me in the catalogue (src/lib/operation.ts): user-level, no
// tenant header; a person's credential only (an API key is 401: operation-route.ts contextFor). Nothing here
// changes a role: roles are their admins' (users/authority.ts).

const tags = ["Auth"];

export const getMeOperation = defineOperation({
  name: "me.get",
  context: "user",
  operationId: "getMe",
  method: "get",
  path: "/me",
  tags,
  summary: "The caller's profile and role assignments",
  request: { headers: z.object({ "x-tenant-id": z.string().optional() }) },
  output: MeResponse,
  errors: { 401: stdErrors[401] },
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => getMe(ctx.control, ctx.principal, input["x-tenant-id"]?.trim()),
});

export const updateMeOperation = defineOperation({
  name: "me.update",
  context: "user",
  operationId: "updateMe",
  method: "patch",
  path: "/me",
  tags,
  summary: "Change your own name",
  description: "Your display name as others see it (assignees, audit). Audited as user.profile_updated.",
  request: { body: UpdateMeBody },
  output: MeResponse,
  errors: { 400: errors[400], 401: errors[401] },
  scopes: [],
  access: "write",
  console: {},
  handler: async (ctx, input) => updateMyProfile(ctx.control, ctx.env, ctx.meta, ctx.principal, input),
});

export const updateMyPasswordOperation = defineOperation({
  name: "me.change-password",
  context: "user",
  operationId: "updateMyPassword",
  method: "post",
  path: "/me/password",
  tags,
  summary: "Change the signed-in account's password",
  description:
    "Proves the current password (throttled like a login: 429 RATE_LIMITED), sets the new one, ends every session of the account (this one included) and returns a new session JWT. A wrong current password is 403 with `details.reason: current_password_incorrect`. Connected apps and API keys keep working; a mail tells the account's address what changed and lists them. Needs a session JWT.",
  request: { body: ChangePasswordBody },
  output: LoginResponse,
  errors: { 400: stdErrors[400], 401: stdErrors[401], 403: stdErrors[403], 429: errors[429] },
  scopes: [],
  access: "write",
  handler: async (ctx, input) => {
    // the session of a session JWT: an OAuth grant's token has none
    if (!ctx.principal.sessionId) throw unauthenticated("A session JWT is required");
    const { currentPassword, newPassword } = input;
    return changePassword(ctx.control, ctx.env, ctx.meta, ctx.userId, { currentPassword, newPassword }, ctx.defer);
  },
});

/** The tenants the signed-in person reaches, with their role in each (the console's tenant switcher reads the same). */
export const listMyTenantsOperation = defineOperation({
  name: "me.list-tenants",
  context: "user",
  operationId: "listMyTenants",
  method: "get",
  path: "/me/tenants",
  tags,
  summary: "The tenants you reach, with your role in each, by name",
  description:
    "Your own tenant roles, every tenant of an agency you administer, and for the platform admin every tenant; " +
    "search matches part of the name or slug. Keyset pages ordered by name.",
  request: { query: ReachableTenantQuery },
  output: paged(ReachableTenantSchema).openapi("ReachableTenantPage"),
  errors: { 400: errors[400], 401: errors[401] },
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => reachableTenants(ctx.control, ctx.principal, input),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  getMeOperation,
  updateMeOperation,
  updateMyPasswordOperation,
  listMyTenantsOperation,
];
