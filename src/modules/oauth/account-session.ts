import { jwtVerify, SignJWT } from "jose";
import type { Env } from "../../env";
import { deriveKey, hmacBase64Url, randomToken, safeEqual } from "../../lib/crypto";
import { baseUrl } from "../../lib/urls";

/**
 * The session of the signed-in account pages (/account/*, docs/SECURITY.md "Connected apps"):
 * a short JWT in an HttpOnly, SameSite=Strict cookie scoped to /account, signed with a key derived
 * for this purpose only. It is not a session JWT: it opens these pages, never the API.
 */
export const ACCOUNT_SESSION_TTL_SECONDS = 30 * 60;
const AUDIENCE = "account-pages";

/** `__Secure-` (the browser insists on Secure) where the service runs on https; plain on http://localhost. */
export const sessionCookieName = (env: Env) => (secure(env) ? "__Secure-account-session" : "account-session");
const secure = (env: Env) => baseUrl(env).startsWith("https:");

const sessionKey = (env: Env) => deriveKey(env.JWT_SECRET ?? "", "account-page-session");
const csrfKey = (env: Env) => deriveKey(env.JWT_SECRET ?? "", "account-page-csrf");

export interface AccountSession {
  userId: string;
  /** the session's id: the CSRF token is derived from it */
  sid: string;
}

export async function startSession(env: Env, userId: string): Promise<{ cookie: string; session: AccountSession }> {
  const sid = randomToken(16);
  const jwt = await new SignJWT({})
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(userId)
    .setJti(sid)
    .setAudience(AUDIENCE)
    .setIssuer(env.JWT_ISSUER)
    .setIssuedAt()
    .setExpirationTime(`${ACCOUNT_SESSION_TTL_SECONDS}s`)
    .sign(await sessionKey(env));
  return { cookie: cookieHeader(env, jwt, ACCOUNT_SESSION_TTL_SECONDS), session: { userId, sid } };
}

export const endSessionCookie = (env: Env) => cookieHeader(env, "", 0);

function cookieHeader(env: Env, value: string, maxAge: number) {
  return `${sessionCookieName(env)}=${value}; Max-Age=${maxAge}; Path=/account; HttpOnly; SameSite=Strict${secure(env) ? "; Secure" : ""}`;
}

/** The session the request's cookie carries, or null (none, expired, forged, another purpose's). */
export async function readSession(env: Env, cookieHeaderValue: string | undefined): Promise<AccountSession | null> {
  const name = sessionCookieName(env);
  const raw = (cookieHeaderValue ?? "")
    .split(";")
    .map((p) => p.trim())
    .find((p) => p.startsWith(`${name}=`))
    ?.slice(name.length + 1);
  if (!raw) return null;
  try {
    const { payload } = await jwtVerify(raw, await sessionKey(env), {
      algorithms: ["HS256"],
      audience: AUDIENCE,
      issuer: env.JWT_ISSUER,
    });
    return payload.sub && payload.jti ? { userId: payload.sub, sid: payload.jti } : null;
  } catch {
    return null;
  }
}

/** The token every form of the session carries (synchronizer token, bound to the session). */
export const csrfToken = async (env: Env, session: AccountSession) => hmacBase64Url(await csrfKey(env), session.sid);

export async function csrfValid(env: Env, session: AccountSession, presented: string): Promise<boolean> {
  return presented.length > 0 && safeEqual(presented, await csrfToken(env, session));
}

/**
 * Whether a form post comes from a page of this site. A browser sends Sec-Fetch-Site (computed by
 * the browser itself) or at least Origin on every POST; Origin must then be this request's origin or
 * PUBLIC_BASE_URL's (a proxy in front may rewrite the URL the Worker sees). A request with neither
 * (a script outside a browser) still needs the session's CSRF token.
 */
export function sameOrigin(
  env: Env,
  requestUrl: string,
  headers: { get(name: string): string | null | undefined },
): boolean {
  const site = headers.get("sec-fetch-site");
  if (site) return site === "same-origin" || site === "none";
  const origin = headers.get("origin");
  return !origin || origin === new URL(requestUrl).origin || origin === new URL(baseUrl(env)).origin;
}
