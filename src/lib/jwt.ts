import { jwtVerify, SignJWT } from "jose";
import type { Env } from "../env";

export const SESSION_TTL_SECONDS = 8 * 3600;

const key = (secret: string) => new TextEncoder().encode(secret);

/**
 * A session JWT: `sub` the user, `sid` the session record it belongs to (docs/sessions.md), which
 * must still be open for the token to work; `exp` 8 hours (decisions.md).
 */
export async function signSessionToken(env: Env, userId: string, sessionId: string, now = new Date()): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({ sid: sessionId })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(userId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + SESSION_TTL_SECONDS)
    .setIssuer(env.JWT_ISSUER)
    .setAudience(env.JWT_AUDIENCE)
    .sign(key(requireSecret(env)));
}

/**
 * The secrets a token signed by this service may carry: JWT_SECRET, then during a rotation
 * JWT_SECRET_PREVIOUS (docs/deploy.md, Rotating secrets). New tokens are always signed with the first.
 */
export const jwtSecrets = (env: Pick<Env, "JWT_SECRET" | "JWT_SECRET_PREVIOUS">): string[] =>
  [env.JWT_SECRET, env.JWT_SECRET_PREVIOUS].filter((s): s is string => typeof s === "string" && s.length >= 32);

export interface SessionClaims {
  userId: string;
  sessionId: string;
  iat: number;
}

/**
 * The token's user and session, or null for any invalid, expired or foreign token, and for one without
 * a session id (signed before sessions had records: it cannot be ended, so it is not honoured).
 */
export async function verifySessionToken(env: Env, token: string): Promise<SessionClaims | null> {
  requireSecret(env);
  for (const secret of jwtSecrets(env)) {
    try {
      const { payload } = await jwtVerify(token, key(secret), {
        algorithms: ["HS256"],
        issuer: env.JWT_ISSUER,
        audience: env.JWT_AUDIENCE,
      });
      if (!payload.sub || typeof payload.iat !== "number") return null;
      if (typeof payload.sid !== "string" || payload.sid === "") return null;
      return { userId: payload.sub, sessionId: payload.sid, iat: payload.iat };
    } catch {
      // not signed with this secret (or expired, foreign): try the previous one, if any
    }
  }
  return null;
}

function requireSecret(env: Env): string {
  if (!env.JWT_SECRET || env.JWT_SECRET.length < 32) {
    throw new Error("JWT_SECRET is not configured (at least 32 characters)");
  }
  return env.JWT_SECRET;
}
