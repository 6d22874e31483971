import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import type { Env } from "../../env";
import {
  clearedSessionCookie,
  endBrowserSession,
  readBrowserSession,
  sessionCookieOf,
  csrfToken as sessionCsrfToken,
  csrfValid as sessionCsrfValid,
  startBrowserSession,
} from "../../middleware/browser-session";
import { requestMeta } from "../../middleware/service-context";
import { checkPassword } from "../auth/service";
import type { OpenedSession } from "../identity/sessions";
import { endUserSessions } from "../identity/sessions";
import type { ConsoleSession, SignInMethod } from "./session-types";

export type { ConsoleSession, SignInMethod } from "./session-types";

/*
 * The console's session is the one session model's (issue #44, docs/sessions.md): a `sessions` row of kind
 * `cookie` per sign-in, idle and absolute lifetimes, the cookie `__Host-session` (HttpOnly, Secure on https,
 * SameSite=Lax; the row keeps only its SHA-256), ended on the server by sign-out, sign-out everywhere, a
 * password reset or change and a deactivation. The same session opens the account pages (/account/*).
 * Every console page reads the signed-in person through `consoleSession(c)`, and signs in and out through
 * the functions below: this file is the console's only door to the model.
 */

/** The signed-in person of the request's cookie, or null (none, ended, expired, idle, forged, deactivated). */
export async function consoleSession(c: Context<AppEnv>): Promise<ConsoleSession | null> {
  const found = await readBrowserSession(c);
  return found ? { principal: found.principal, sessionId: found.session.id, method: found.session.method } : null;
}

/**
 * The password check of POST /auth/login (its throttling per email and IP, the one 401 for every kind of
 * wrong, SSO enforcement), opening no session of its own. Returns the user's id.
 */
export async function checkPasswordSignIn(c: Context<AppEnv>, email: string, password: string): Promise<string> {
  return (await checkPassword(c.var.control, c.env, requestMeta(c).ip, email, password)).id;
}

/** Opens a session for a person who just proved who they are; returns its Set-Cookie header. */
export async function beginConsoleSession(
  c: Context<AppEnv>,
  userId: string,
  method: SignInMethod,
  /** the tenant whose identity provider signed the person in (method saml) */
  ssoTenantId: string | null = null,
): Promise<string> {
  return (await startBrowserSession(c.var.control, c.env, userId, method, new Date(), ssoTenantId)).cookie;
}

/** The Set-Cookie header of a cookie session a service opened in its own batch (an accepted invite, a reset). */
export const cookieOfSession = (env: Env, opened: OpenedSession) => sessionCookieOf(env, opened);

/** Sign out: ends this session on the server; returns the Set-Cookie header that clears it in this browser. */
export const endConsoleSession = (c: Context<AppEnv>, s: ConsoleSession) =>
  endBrowserSession(c.var.control, c.env, s.sessionId);

/** Sign out everywhere: ends every session of the person (browsers, API tokens, MCP sessions opened with them). */
export async function endEverySession(c: Context<AppEnv>, s: ConsoleSession): Promise<string> {
  await endUserSessions(c.var.control, s.principal.userId, "logout_all");
  return clearedSessionCookie(c.env);
}

/** The token every form of the session carries (synchronizer token: an HMAC of the session's id). */
export const csrfToken = (env: Env, s: ConsoleSession) => sessionCsrfToken(env, s.sessionId);

export const csrfValid = (env: Env, s: ConsoleSession, presented: string) =>
  sessionCsrfValid(env, s.sessionId, presented);
