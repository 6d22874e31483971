import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";
import type { Env } from "../env";
import type { Db } from "../db/client";
import { unauthenticated } from "../lib/errors";
import { verifySessionToken } from "../lib/jwt";
import type { Principal } from "../modules/identity/access";
import { loadUserPrincipal } from "../modules/identity/service";

/**
 * A credential scheme: claims a bearer token it recognises (by shape) and resolves it to a
 * principal, or returns null for a token that is its own but invalid. API keys and OAuth access
 * tokens plug in here beside session JWTs.
 */
export interface Authenticator {
  name: string;
  claims(token: string): boolean;
  authenticate(token: string, env: Env, db: Db): Promise<Principal | null>;
}

const sessionJwt: Authenticator = {
  name: "session-jwt",
  claims: (token) => token.split(".").length === 3,
  async authenticate(token, env, db) {
    const verified = await verifySessionToken(env, token);
    return verified ? loadUserPrincipal(db, verified.userId) : null;
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
export async function resolveBearer(token: string, env: Env, db: Db): Promise<Principal | null> {
  const scheme = authenticators.find((a) => a.claims(token));
  return scheme ? scheme.authenticate(token, env, db) : null;
}

export const authenticate = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearerToken(c);
  if (!token) throw unauthenticated();
  const principal = await resolveBearer(token, c.env, c.var.db);
  if (!principal) throw unauthenticated("Invalid or expired credential");
  c.set("principal", principal);
  await next();
});
