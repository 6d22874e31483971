import type { ControlDb } from "../../db/client";
import type { Env } from "../../env";
import { forbidden } from "../../lib/errors";
import { mcpResourceUrl } from "../../lib/urls";
import { resolveBearer } from "../../middleware/auth";
import {
  administeredAgencies,
  admitTenant,
  isPlatformAdmin,
  PASSWORD_SIGN_IN,
  resolveTenantAccess,
  roleAtLeast,
} from "../identity/access";
import { findTenantRef, loadUserPrincipal } from "../identity/service";
import { grantOfToken, recordGrantUse } from "../oauth/last-used";
import { authServer, type GrantProps, looksLikeOAuthToken } from "../oauth/provider";
import { READ_SCOPES } from "../oauth/scopes";
import type { SessionIdentity } from "./identity";

/**
 * Resolves a bearer credential to the identity an MCP session acts as, or null when it is not
 * (or no longer) valid. OAuth access tokens are checked against this server's audience; anything
 * else goes through the authenticator registry (session JWTs, API keys).
 * `requestedTenant` is the x-tenant-id header, used only by session JWTs (API keys and OAuth
 * grants carry their tenant).
 */
export async function identify(
  token: string,
  requestedTenant: string | null,
  env: Env,
  db: ControlDb,
  /** the endpoint's protected resource: an OAuth token must have been issued for exactly this one */
  resource = mcpResourceUrl(env),
): Promise<SessionIdentity | null> {
  if (looksLikeOAuthToken(token)) {
    const viaOAuth = await identifyOAuth(token, env, db, resource);
    if (viaOAuth) return viaOAuth;
  }
  const principal = await resolveBearer(token, env, db);
  if (!principal) return null;
  if (principal.kind === "api_key") {
    const tenant = await findTenantRef(db, principal.tenantId);
    if (!tenant) return null;
    return {
      credential: "api_key",
      tenantId: principal.tenantId,
      keyId: principal.keyId,
      scopes: principal.scopes,
      agencySession: false,
    };
  }
  const tenantId = requestedTenant ?? principal.homeTenantId;
  if (!tenantId) throw forbidden("Send x-tenant-id: this account has no home tenant");
  const access = admitTenant(principal, await findTenantRef(db, tenantId));
  // a signed-in user reads everything their role can, and writes where the role allows writes
  const scopes = [
    ...READ_SCOPES,
    ...(roleAtLeast(access.role, "tenant_user") ? ["write:contacts", "write:reviews", "write:inbox"] : []),
    ...(roleAtLeast(access.role, "manager") ? ["write:responses", "write:campaigns"] : []),
  ];
  return {
    credential: "session_jwt",
    tenantId,
    userId: principal.userId,
    scopes,
    agencySession: false,
    platformAdmin: isPlatformAdmin(principal),
    signIn: principal.signIn,
  };
}

async function identifyOAuth(
  token: string,
  env: Env,
  db: ControlDb,
  resource: string,
): Promise<SessionIdentity | null> {
  const validated = await (await authServer(env)).validateToken<GrantProps>(resource, token, env);
  if (!validated) return null;
  const { tenantId, agencySession } = validated.props;
  // the user must still exist and still reach the tenant (and still administer an agency)
  const [principal, tenant] = await Promise.all([
    loadUserPrincipal(db, validated.userId, PASSWORD_SIGN_IN),
    findTenantRef(db, tenantId),
  ]);
  if (!principal || !tenant || !resolveTenantAccess(principal, tenant)) return null;
  if (agencySession && !administeredAgencies(principal).includes(tenant.agencyId)) return null;
  // "last used" on the connected-apps page (/app/connected-apps): one KV write per grant per isolate per 5 minutes at most
  await recordGrantUse(env, token);
  return {
    credential: "oauth",
    tenantId,
    userId: validated.userId,
    clientId: validated.clientId,
    // the token names its grant (`userId:grantId:secret`); the library found the token under it, so it is the grant's
    grantId: grantOfToken(token)?.grantId,
    scopes: validated.scope,
    agencySession,
    platformAdmin: isPlatformAdmin(principal),
    signIn: PASSWORD_SIGN_IN,
  };
}
