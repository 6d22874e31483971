import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import { unauthenticated } from "../../lib/errors";
import { createRouter, errors, json, type Router, USER_SECURITY } from "../../lib/openapi";
import { listUserGrantsView, OAuthGrantListSchema, ownRevokeSource, revokeUserGrant } from "./grants";

const tags = ["OAuth"];

/**
 * The signed-in user's connected apps under /me (user-level, like GET /me: no tenant header, since a
 * user's grants may act for several tenants). A session JWT only: an API key, or an app's own OAuth
 * token (whose audience is /mcp), is 401, so no app can list or revoke the others.
 */
const list = createRoute({
  method: "get",
  path: "/me/oauth-grants",
  operationId: "listMyOAuthGrants",
  tags,
  security: USER_SECURITY,
  summary: "Your connected apps (OAuth grants), across tenants",
  description:
    "Every app the signed-in user connected through OAuth (MCP clients such as Claude or ChatGPT): its name and logo from its registered metadata (untrusted text: escape it), scopes, the tenant it acts for, when it was connected and last used. The console page /app/connected-apps shows the same list.",
  responses: { 200: json(OAuthGrantListSchema), 401: errors[401] },
});

const revoke = createRoute({
  method: "delete",
  path: "/me/oauth-grants/{grantId}",
  operationId: "revokeMyOAuthGrant",
  tags,
  security: USER_SECURITY,
  summary: "Disconnect an app: revoke its OAuth grant",
  description:
    "Ends the grant's access and refresh tokens at once: the app's next /mcp call is 401 and its refresh is refused (invalid_grant). Another user's grant id is 404. Audited in the tenant the grant acted for.",
  request: { params: z.object({ grantId: z.string().min(1).max(200) }) },
  responses: { 204: { description: "Revoked" }, 400: errors[400], 401: errors[401], 404: errors[404] },
});

const userOf = (c: Context<AppEnv>) => {
  const p = c.var.principal;
  if (p.kind !== "user") throw unauthenticated("A user's session is required; API keys have no connected apps");
  return p.userId;
};

export const myOAuthGrantRoutes: Router = createRouter()
  .openapi(list, async (c) => c.json(await listUserGrantsView(c.env, userOf(c)), 200))
  .openapi(revoke, async (c) => {
    const userId = userOf(c);
    await revokeUserGrant(ownRevokeSource(c, userId), userId, c.req.valid("param").grantId);
    return c.body(null, 204);
  });
