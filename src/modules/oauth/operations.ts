import { z } from "@hono/zod-openapi";
import { errors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, noContent, type Operation } from "../../lib/operation";
import { listGrants, listUserGrantsView, OAuthGrantListSchema, revokeGrant, revokeUserGrant } from "./grants";

// The signed-in user's connected apps (OAuth grants) in the catalogue (src/lib/operation.ts): under /me
// (user-level, no tenant header, since a user's grants may act for several tenants) and their /v1 twins.
// A person's own credential only: an API key is 401 under /me and 403 under /v1 (no scope admits it),
// and an app's own OAuth token (whose audience is /mcp) is 401, so no app can list or revoke the others.

const tags = ["OAuth"];

export const listMyOAuthGrantsOperation = defineOperation({
  name: "me.list-oauth-grants",
  context: "user",
  operationId: "listMyOAuthGrants",
  method: "get",
  path: "/me/oauth-grants",
  tags,
  summary: "Your connected apps (OAuth grants), across tenants",
  description:
    "Every app the signed-in user connected through OAuth (MCP clients such as Claude or ChatGPT): its name and logo from its registered metadata (untrusted text: escape it), scopes, the tenant it acts for, when it was connected and last used. The console page /app/connected-apps shows the same list.",
  output: OAuthGrantListSchema,
  errors: { 401: errors[401] },
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx) => listUserGrantsView(ctx.env, ctx.userId),
});

export const revokeMyOAuthGrantOperation = defineOperation({
  name: "me.revoke-oauth-grant",
  context: "user",
  operationId: "revokeMyOAuthGrant",
  method: "delete",
  path: "/me/oauth-grants/{grantId}",
  tags,
  summary: "Disconnect an app: revoke its OAuth grant",
  description:
    "Ends the grant's access and refresh tokens at once: the app's next /mcp call is 401 and its refresh is refused (invalid_grant). Another user's grant id is 404. Audited in the tenant the grant acted for.",
  request: { params: z.object({ grantId: z.string().min(1).max(200) }) },
  status: 204,
  statusText: "Revoked",
  output: noContent,
  errors: { 400: errors[400], 401: errors[401], 404: errors[404] },
  scopes: [],
  access: "write",
  destructive: true,
  console: {},
  handler: async (ctx, input) => {
    await revokeUserGrant(ctx, ctx.userId, input.grantId);
  },
});

export const listOAuthGrantsOperation = defineOperation({
  name: "oauth-grant.list",
  operationId: "listOAuthGrants",
  method: "get",
  path: "/v1/oauth/grants",
  tags,
  summary: "Your connected apps (OAuth grants)",
  description:
    "Every app the signed-in user connected through OAuth (MCP clients such as Claude or ChatGPT), with the tenant it acts for and its scopes. API keys get 403.",
  output: OAuthGrantListSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  handler: async (ctx) => listGrants(ctx),
});

export const deleteOAuthGrantOperation = defineOperation({
  name: "oauth-grant.revoke",
  operationId: "deleteOAuthGrant",
  method: "delete",
  path: "/v1/oauth/grants/{id}",
  tags,
  summary: "Disconnect an app (revoke an OAuth grant)",
  description:
    "Revokes the grant with its access and refresh tokens, effective immediately (its open MCP sessions fail on their next request). Audited.",
  request: { params: z.object({ id: z.string().min(1).max(200) }) },
  status: 204,
  statusText: "Revoked",
  output: noContent,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "write",
  destructive: true,
  handler: async (ctx, input) => {
    await revokeGrant(ctx, input.id);
  },
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  listMyOAuthGrantsOperation,
  revokeMyOAuthGrantOperation,
  listOAuthGrantsOperation,
  deleteOAuthGrantOperation,
];
