import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import { ApiError } from "../../lib/errors";
import { createRouter, json, type Router, stdErrorsWithNotFound, TENANT_SECURITY } from "../../lib/openapi";
import { baseUrl } from "../../lib/urls";
import { svc } from "../../middleware/service-context";
import { showAuthorize, submitAuthorize } from "./authorize";
import { listGrants, OAuthGrantListSchema, revokeGrant } from "./grants";
import { AUTHORIZE_PATH, authServer, REGISTER_PATH, TOKEN_PATH } from "./provider";

const tags = ["OAuth"];

const list = createRoute({
  method: "get",
  path: "/v1/oauth/grants",
  operationId: "listOAuthGrants",
  tags,
  security: TENANT_SECURITY,
  summary: "Your connected apps (OAuth grants)",
  description:
    "Every app the signed-in user connected through OAuth (MCP clients such as Claude or ChatGPT), with the tenant it acts for and its scopes. API keys get 403.",
  responses: {
    200: json(OAuthGrantListSchema),
    ...stdErrorsWithNotFound,
  },
});

const revoke = createRoute({
  method: "delete",
  path: "/v1/oauth/grants/{id}",
  operationId: "deleteOAuthGrant",
  tags,
  security: TENANT_SECURITY,
  summary: "Disconnect an app (revoke an OAuth grant)",
  description:
    "Revokes the grant with its access and refresh tokens, effective immediately (its open MCP sessions fail on their next request). Audited.",
  request: { params: z.object({ id: z.string().min(1).max(200) }) },
  responses: { 204: { description: "Revoked" }, ...stdErrorsWithNotFound },
});

/**
 * Protocol endpoints the provider owns: RFC 8414 metadata, token (and revocation), RFC 7591 registration.
 * The provider only answers on its issuer's origin (PUBLIC_BASE_URL) and gives anything else an empty
 * 404; a request on another host (127.0.0.1 for localhost, a workers.dev name) gets a JSON error that
 * names the issuer instead. It is not served: RFC 8414 clients reject metadata whose issuer differs
 * from the host they asked, and tokens are bound to the issuer.
 */
const provider = async (c: Context<AppEnv>) => {
  const issuer = baseUrl(c.env);
  const url = new URL(c.req.url);
  if (url.origin !== new URL(issuer).origin) {
    throw new ApiError("NOT_FOUND", `No OAuth endpoint on ${url.origin}: the issuer is ${issuer}`, {
      issuer,
      endpoint: `${issuer}${url.pathname}`,
    });
  }
  return (await authServer(c.env)).fetch(c.req.raw, c.env, c.executionCtx as ExecutionContext);
};

export const oauthRoutes: Router = createRouter()
  .openapi(list, async (c) => c.json(await listGrants(svc(c)), 200))
  .openapi(revoke, async (c) => {
    await revokeGrant(svc(c), c.req.valid("param").id);
    return c.body(null, 204);
  });

oauthRoutes.get(AUTHORIZE_PATH, showAuthorize);
oauthRoutes.post(AUTHORIZE_PATH, submitAuthorize);
oauthRoutes.all("/.well-known/oauth-authorization-server", provider);
// the token request names its client in the body, Basic auth or a client assertion: the library
// fetches a CIMD client's document through the SSRF guard authServer wraps it in (provider.ts)
oauthRoutes.all(TOKEN_PATH, provider);
oauthRoutes.all(REGISTER_PATH, provider);
oauthRoutes.all(`${REGISTER_PATH}/*`, provider);
