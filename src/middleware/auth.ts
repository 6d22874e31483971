import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";
import type { ControlDb } from "../db/client";
import type { Env } from "../env";
import { unauthenticated } from "../lib/errors";
import { verifySessionToken } from "../lib/jwt";
import type { Principal, TenantRef } from "../modules/identity/access";
import { resolveSessionPrincipal } from "../modules/identity/service";

/**
 * A credential scheme: claims a bearer token it recognises (by shape) and resolves it to a
 * principal, or returns null for a token that is its own but invalid. API keys and OAuth access
 * tokens plug in here beside session JWTs.
 */
export interface Authenticator {
  name: string;
  claims(token: string): boolean;
  /** `tenantId` is the tenant the request names: a scheme that reads D1 anyway may read it alongside */
  authenticate(token: string, env: Env, db: ControlDb, tenantId?: string): Promise<Authenticated | null>;
}

export interface Authenticated {
  principal: Principal;
  /** set when the scheme read the named tenant in its own round trip (null: no such tenant) */
  tenant?: TenantRef | null;
}

const sessionJwt: Authenticator = {
  name: "session-jwt",
  claims: (token) => token.split(".").length === 3,
  async authenticate(token, env, db, tenantId) {
    const verified = await verifySessionToken(env, token);
    if (!verified) return null;
    // the token works while its session record is open (docs/sessions.md): sign-out, a password
    // reset or change and a deactivation end it within the principal cache's 10 s
    const { principal, tenant } = await resolveSessionPrincipal(db, verified, tenantId);
    return principal ? { principal, tenant } : null;
  },
};

const authenticators: Authenticator[] = [sessionJwt];

/** Registers another credential scheme; the first whose claims() matches decides. */
export const registerAuthenticator = (a: Authenticator) => {
  if (!authenticators.some((x) => x.name === a.name)) authenticators.unshift(a);
};

export const bearerToken = (c: Context<AppEnv>): string | null => {
  const header = c.req.header("authorization");
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m ? m[1]! : null;
};

/** Resolves a bearer token through the registered schemes (also used by MCP's initialize). */
export async function resolveBearer(token: string, env: Env, db: ControlDb): Promise<Principal | null> {
  return (await authenticateBearer(token, env, db))?.principal ?? null;
}

const authenticateBearer = (
  token: string,
  env: Env,
  db: ControlDb,
  tenantId?: string,
): Promise<Authenticated | null> => {
  const scheme = authenticators.find((a) => a.claims(token));
  return scheme ? scheme.authenticate(token, env, db, tenantId) : Promise.resolve(null);
};

/** The x-tenant-id the request names, trimmed; undefined when absent or blank. */
export const requestedTenantId = (c: Context<AppEnv>): string | undefined =>
  c.req.header("x-tenant-id")?.trim() || undefined;

export const authenticate = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearerToken(c);
  if (!token) throw unauthenticated();
  const authenticated = await authenticateBearer(token, c.env, c.var.control, requestedTenantId(c));
  if (!authenticated) throw unauthenticated("Invalid or expired credential");
  c.set("principal", authenticated.principal);
  if (authenticated.tenant !== undefined) c.set("prefetchedTenant", authenticated.tenant);
  await next();
});
