import type { Context } from "hono";
import { generateCookie, getCookie } from "hono/cookie";
import { jwtVerify, SignJWT } from "jose";
import type { AppEnv } from "../../app-env";
import type { Env } from "../../env";
import { hmacBase64Url, purposeKey, randomToken, safeEqual } from "../../lib/crypto";
import { baseUrl } from "../../lib/urls";
import { requestMeta } from "../../middleware/service-context";
import { login } from "../auth/service";
import { loadUserPrincipal } from "../identity/service";
import type { ConsoleSession, SignInMethod } from "./session-types";

/*
 * THE SEAM between the console and the one session model of issue #44 (branch `session-model`): every
 * console page reads the signed-in person through `consoleSession(c)` and signs in and out through the
 * three functions below, nothing else. When the model lands, this file's bodies become calls into it
 * (a `sessions` row per sign-in, cookie `__Host-session`, its CSRF token): no page changes.
 *
 * Until then (interim, docs/console.md "Sessions"): a signed, HttpOnly cookie of the same name and
 * attributes carrying the user id and a random session id, valid 12 hours; the person is re-read on
 * every request (a deactivated account is signed out at once). What the interim cannot do, and the
 * model will: end a session on the server (sign-out only clears this browser's cookie), sign out
 * everywhere, end sessions on a password reset or change.
 */

export type { ConsoleSession, SignInMethod } from "./session-types";

const TTL_SECONDS = 12 * 3600;
const AUDIENCE = "console";
const secure = (env: Env) => baseUrl(env).startsWith("https:");

/** `__Host-session` on https (Secure, Path=/, no Domain), `session` on http://localhost: the model's name. */
export const sessionCookieName = (env: Env) => (secure(env) ? "__Host-session" : "session");

const cookie = (env: Env, value: string, maxAge: number) =>
  generateCookie(sessionCookieName(env), value, {
    path: "/",
    httpOnly: true,
    // a link in a mail opens the console signed in; a cross-site POST carries no cookie
    sameSite: "Lax",
    secure: secure(env),
    maxAge,
  });

// interim keys: the account pages' derived key with an audience of the console's own, so neither opens the other
const sessionKey = (env: Env) => purposeKey(env.JWT_SECRET ?? "", "account-page-session");
const csrfKey = (env: Env) => purposeKey(env.JWT_SECRET ?? "", "account-page-csrf");

/** The signed-in person of the request's cookie, or null (none, expired, forged, deactivated). */
export async function consoleSession(c: Context<AppEnv>): Promise<ConsoleSession | null> {
  const raw = getCookie(c, sessionCookieName(c.env));
  if (!raw || raw.length > 2000) return null;
  try {
    const { payload } = await jwtVerify(raw, await sessionKey(c.env), {
      algorithms: ["HS256"],
      audience: AUDIENCE,
      issuer: c.env.JWT_ISSUER,
    });
    if (!payload.sub || !payload.jti) return null;
    const principal = await loadUserPrincipal(c.var.control, payload.sub);
    if (!principal) return null;
    return { principal, sessionId: payload.jti, method: (payload.m as SignInMethod) ?? "password" };
  } catch {
    return null;
  }
}

/**
 * The password check of POST /auth/login (its throttling per email and IP, the one 401 for every kind of
 * wrong, SSO enforcement), opening no session of its own: the console opens its own below. Returns the user's id.
 */
export async function checkPasswordSignIn(c: Context<AppEnv>, email: string, password: string): Promise<string> {
  // interim: login() also signs a session JWT, which is dropped; the model's checkPassword signs nothing
  return (await login(c.var.control, c.env, requestMeta(c).ip, email, password)).user.id;
}

/** Opens a session for a person who just proved who they are; returns its Set-Cookie header. A new id every sign-in. */
export async function beginConsoleSession(
  env: Env,
  userId: string,
  method: SignInMethod,
  /** the tenant whose identity provider signed the person in (method saml): the model records it */
  _ssoTenantId: string | null = null,
): Promise<string> {
  const jwt = await new SignJWT({ m: method })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(userId)
    .setJti(randomToken(16))
    .setAudience(AUDIENCE)
    .setIssuer(env.JWT_ISSUER)
    .setIssuedAt()
    .setExpirationTime(`${TTL_SECONDS}s`)
    .sign(await sessionKey(env));
  return cookie(env, jwt, TTL_SECONDS);
}

/** Sign out: ends the session; returns the Set-Cookie header that clears it in this browser. */
export async function endConsoleSession(env: Env, _session: ConsoleSession): Promise<string> {
  return cookie(env, "", 0);
}

/** Sign out everywhere: ends every session of the person. Interim: only this browser's (see above). */
export async function endEverySession(env: Env, session: ConsoleSession): Promise<string> {
  return endConsoleSession(env, session);
}

/** Whether `sign out everywhere` ends other browsers' sessions yet (the page says so honestly until it does). */
export const SIGN_OUT_EVERYWHERE_AVAILABLE = false;

/** The token every form of the session carries (synchronizer token: an HMAC of the session's id). */
export const csrfToken = async (env: Env, s: ConsoleSession) =>
  hmacBase64Url(await csrfKey(env), `console:${s.sessionId}`);

export async function csrfValid(env: Env, s: ConsoleSession, presented: string): Promise<boolean> {
  return presented.length > 0 && safeEqual(presented, await csrfToken(env, s));
}
