import type { OAuthAuthorizationServer } from "@cloudflare/workers-oauth-provider";
import type { Env } from "../../env";
import { guardedObject } from "../../lib/outbound-guard";
import { checkOutboundUrl } from "../../lib/ssrf";
import { baseUrl, mcpReadonlyResourceUrl, mcpResourceUrl } from "../../lib/urls";
import { ALL_SCOPES, READ_SCOPES, type Scope } from "./scopes";

export const AUTHORIZE_PATH = "/oauth/authorize";
export const TOKEN_PATH = "/oauth/token";
export const REGISTER_PATH = "/oauth/register";

export const ACCESS_TOKEN_TTL = 3600;
export const REFRESH_TOKEN_TTL = 30 * 24 * 3600;

/** What completeAuthorization stores with a grant and validateToken hands back. */
export interface GrantProps {
  tenantId: string;
  agencySession: boolean;
}

/** Grant metadata: stored in clear by the provider, so it holds nothing secret. */
export interface GrantMetadata extends GrantProps {
  clientName: string;
  tenantName: string;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** RFC 7591 registration policy: every redirect URI is https, or http on a loopback host. */
export function redirectUriProblem(uris: unknown): string | null {
  if (!Array.isArray(uris) || uris.length === 0) return "redirect_uris is required";
  for (const raw of uris) {
    let u: URL;
    try {
      u = new URL(String(raw));
    } catch {
      return `Invalid redirect URI: ${String(raw)}`;
    }
    const ok = u.protocol === "https:" || (u.protocol === "http:" && LOOPBACK.has(u.hostname));
    if (!ok) return `Redirect URIs must use https, or http on localhost: ${u.href}`;
  }
  return null;
}

/**
 * Whether a client_id is a URL the SSRF guard refuses: lets the authorize page say so before the
 * library runs. It is not the boundary: the library finds client ids in more places (form bodies,
 * Basic auth, a client assertion's iss) and fetches documents it was redirected to and their
 * jwks_uri; every such fetch goes through the guard authServer wraps the library in.
 */
export function cimdClientProblem(clientId: string | null | undefined): string | null {
  if (!clientId || !/^https?:\/\//i.test(clientId)) return null;
  const check = checkOutboundUrl(clientId);
  return check.ok ? null : `client_id ${check.reason}`;
}

type OAuthLib = typeof import("@cloudflare/workers-oauth-provider");
let lib: Promise<OAuthLib> | undefined;

/**
 * The library, loaded on first use: it imports cloudflare:workers, which the Node-side OpenAPI
 * check (test/node) cannot resolve when it builds the app.
 */
export const oauthLib = (): Promise<OAuthLib> => (lib ??= import("@cloudflare/workers-oauth-provider"));

const servers = new Map<string, OAuthAuthorizationServer<Env>>();

/**
 * The OAuth 2.1 authorization server (tokens, refresh rotation, revocation, RFC 8414 metadata,
 * RFC 7591 registration, RFC 8707 audience). Built per issuer, because the issuer is
 * PUBLIC_BASE_URL, which is only known from the environment.
 *
 * The library fetches Client ID Metadata Documents, and the jwks_uri they name, with the global
 * fetch and follows redirects; it takes no fetch of ours. So every call into it (and into the helpers
 * getOAuthApi returns) runs inside lib/outbound-guard.ts: each URL and each redirect hop passes
 * lib/ssrf.ts, whichever source the client id came from (docs/SECURITY.md, "Client ID Metadata Documents").
 */
export async function authServer(env: Env): Promise<OAuthAuthorizationServer<Env>> {
  const issuer = baseUrl(env);
  let server = servers.get(issuer);
  if (!server) {
    const { OAuthAuthorizationServer } = await oauthLib();
    server = new OAuthAuthorizationServer<Env>({
      issuer,
      // /mcp and /mcp/readonly are two protected resources: a token is bound to the one it was asked for
      // (RFC 8707 `resource`); a request naming none gets /mcp, as before (docs/mcp.md, Read-only endpoint)
      resources: [mcpResourceUrl(env), mcpReadonlyResourceUrl(env)],
      defaultResource: mcpResourceUrl(env),
      legacyGrantResource: mcpResourceUrl(env),
      authorizeEndpoint: AUTHORIZE_PATH,
      tokenEndpoint: TOKEN_PATH,
      clientRegistrationEndpoint: REGISTER_PATH,
      // CIMD beside DCR (needs the global_fetch_strictly_public flag, set in wrangler.toml)
      clientIdMetadataDocumentEnabled: true,
      scopesSupported: ALL_SCOPES,
      accessTokenTTL: ACCESS_TOKEN_TTL,
      refreshTokenTTL: REFRESH_TOKEN_TTL,
      clientRegistrationCallback: ({ clientMetadata }) => {
        const problem = redirectUriProblem(clientMetadata.redirect_uris);
        return problem ? { code: "invalid_redirect_uri", description: problem } : undefined;
      },
    });
    server = guardedObject(server);
    servers.set(issuer, server);
  }
  return server;
}

/**
 * The scopes a grant for `resource` may hold: read scopes only for /mcp/readonly (its tools are the
 * read tools; a write scope there would be a permission nothing can use, shown to the user as if it
 * could), every scope for /mcp. What a client asks beyond them is narrowed away, not refused
 * (RFC 6749 3.3; the token response's `scope` names what was granted).
 */
export const grantableScopes = (env: Env, resource: string | undefined): readonly Scope[] =>
  resource === mcpReadonlyResourceUrl(env) ? READ_SCOPES : ALL_SCOPES;

/** Provider tokens are `userId:grantId:secret`; session JWTs and API keys never contain a colon. */
export const looksLikeOAuthToken = (token: string) => /^[^:\s]+:[^:\s]+:[^:\s]+$/.test(token);
