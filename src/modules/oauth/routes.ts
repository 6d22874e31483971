import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import { ApiError } from "../../lib/errors";
import { createRouter, type Router } from "../../lib/openapi";
import { baseUrl } from "../../lib/urls";
import { showAuthorize, submitAuthorize } from "./authorize";
import { AUTHORIZE_PATH, authServer, REGISTER_PATH, TOKEN_PATH } from "./provider";

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

// the connected apps' JSON routes are operations (oauth/operations.ts); these are the protocol's (exempt)
export const oauthRoutes: Router = createRouter();

oauthRoutes.get(AUTHORIZE_PATH, showAuthorize);
oauthRoutes.post(AUTHORIZE_PATH, submitAuthorize);
oauthRoutes.all("/.well-known/oauth-authorization-server", provider);
// the token request names its client in the body, Basic auth or a client assertion: the library
// fetches a CIMD client's document through the SSRF guard authServer wraps it in (provider.ts)
oauthRoutes.all(TOKEN_PATH, provider);
oauthRoutes.all(REGISTER_PATH, provider);
oauthRoutes.all(`${REGISTER_PATH}/*`, provider);
