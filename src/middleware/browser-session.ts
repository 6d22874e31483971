import type { Context } from "hono";
import { generateCookie, getCookie } from "hono/cookie";
import type { AppEnv } from "../app-env";
import type { ControlDb } from "../db/client";
import type { SessionMethod } from "../db/schema";
import type { Env } from "../env";
import { hmacBase64Url, purposeKey, safeEqual } from "../lib/crypto";
import { baseUrl } from "../lib/urls";
import type { UserPrincipal } from "../modules/identity/access";
import { resolveCookieSession } from "../modules/identity/service";
import type { SessionState } from "../modules/identity/session-state";
import { endSession, type OpenedSession, openSession } from "../modules/identity/sessions";

/**
 * A browser's session (docs/sessions.md): a `sessions` row of kind `cookie`, addressed by a random
 * 256-bit cookie value of which the row keeps only the SHA-256, so a leaked table opens nothing. The
 * console uses it (src/modules/console/session.ts): one cookie for the whole origin,
 * `__Host-session` (Secure, Path=/, no Domain) on https, `session` on http://localhost; HttpOnly and
 * SameSite=Lax (a link in a mail opens the page signed in; a cross-site POST carries no cookie, and
 * every post also needs the same origin, hono/csrf in the console's guards, and the session's CSRF token).
 */
const secure = (env: Env) => baseUrl(env).startsWith("https:");
export const sessionCookieName = (env: Env) => (secure(env) ? "__Host-session" : "session");

const cookieHeader = (env: Env, value: string, maxAgeSeconds: number) =>
  generateCookie(sessionCookieName(env), value, {
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
    secure: secure(env),
    maxAge: maxAgeSeconds,
  });

export interface BrowserSession {
  principal: UserPrincipal;
  session: SessionState;
}

/** The live session the request's cookie names, with its user; null when none, ended, expired, idle or forged. */
export async function readBrowserSession(c: Context<AppEnv>, now = Date.now()): Promise<BrowserSession | null> {
  const secret = getCookie(c, sessionCookieName(c.env));
  if (!secret || secret.length > 100) return null;
  return resolveCookieSession(c.var.control, secret, now);
}

/** Records a new browser session for a person who just proved who they are; returns its Set-Cookie header. */
export async function startBrowserSession(
  db: ControlDb,
  env: Env,
  userId: string,
  method: SessionMethod,
  now = new Date(),
  /** the tenant whose identity provider signed the person in (method saml) */
  ssoTenantId: string | null = null,
): Promise<{ cookie: string; sessionId: string }> {
  const opened = await openSession(db, { userId, kind: "cookie", method, ssoTenantId }, now);
  await opened.statement;
  const maxAge = Math.max(0, Math.round((opened.expiresAt.getTime() - now.getTime()) / 1000));
  return { cookie: cookieHeader(env, opened.secret!, maxAge), sessionId: opened.id };
}

/** The Set-Cookie header of a cookie session opened in another change's batch (an accepted invite, a reset). */
export function sessionCookieOf(env: Env, opened: OpenedSession, now = new Date()): string {
  if (!opened.secret) throw new Error("sessionCookieOf: a bearer session has no cookie");
  return cookieHeader(env, opened.secret, Math.max(0, Math.round((opened.expiresAt.getTime() - now.getTime()) / 1000)));
}

/** Ends the session (sign-out) and returns the Set-Cookie header that clears it in the browser. */
export async function endBrowserSession(db: ControlDb, env: Env, sessionId: string): Promise<string> {
  await endSession(db, sessionId, "logout");
  return clearedSessionCookie(env);
}

export const clearedSessionCookie = (env: Env) => cookieHeader(env, "", 0);

const csrfKey = (env: Env) => purposeKey(env.JWT_SECRET ?? "", "session-csrf");

/** The token every form of the session carries (synchronizer token: an HMAC of the session's id). */
export const csrfToken = async (env: Env, sessionId: string) => hmacBase64Url(await csrfKey(env), sessionId);

export async function csrfValid(env: Env, sessionId: string, presented: string): Promise<boolean> {
  return presented.length > 0 && safeEqual(presented, await csrfToken(env, sessionId));
}
