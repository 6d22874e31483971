import type { SessionKind, sessions } from "../../db/schema";
import { SESSION_TTL_SECONDS } from "../../lib/jwt";
import { PASSWORD_SIGN_IN, type SignIn } from "./access";

/** The session model's rules, without I/O (docs/sessions.md); the records are kept by ./sessions.ts. */

/** No request for this long ends a session (a shared front-desk computer left signed in is signed out overnight). */
export const SESSION_IDLE_SECONDS = 12 * 3600;

/**
 * The lifetimes of each kind. A bearer session lives as long as its JWT (8 hours, decisions.md), so its
 * idle bound never comes first and the API's hot path writes nothing; a browser session (account pages,
 * the console) lasts at most 30 days and ends after 12 idle hours.
 */
export const SESSION_LIFETIMES: Record<SessionKind, { absoluteSeconds: number; idleSeconds: number }> = {
  bearer: { absoluteSeconds: SESSION_TTL_SECONDS, idleSeconds: SESSION_IDLE_SECONDS },
  cookie: { absoluteSeconds: 30 * 86_400, idleSeconds: SESSION_IDLE_SECONDS },
};

/** `lastSeenAt` is written at most once per this interval per session (the idle bound is this coarse). */
export const SESSION_TOUCH_MS = 5 * 60_000;

export type SessionRow = typeof sessions.$inferSelect;
/** What deciding and using a session needs (the cached form). */
export type SessionState = Pick<
  SessionRow,
  "id" | "userId" | "kind" | "method" | "ssoTenantId" | "lastSeenAt" | "expiresAt" | "endedAt"
>;

export const sessionState = (r: SessionRow): SessionState => ({
  id: r.id,
  userId: r.userId,
  kind: r.kind,
  method: r.method,
  ssoTenantId: r.ssoTenantId,
  lastSeenAt: r.lastSeenAt,
  expiresAt: r.expiresAt,
  endedAt: r.endedAt,
});

/** Live at `now` (epoch ms): not ended, before its absolute end, and seen within the idle lifetime. */
export function sessionLive(s: SessionState, now: number): boolean {
  if (s.endedAt) return false;
  if (now >= Date.parse(s.expiresAt)) return false;
  return now < Date.parse(s.lastSeenAt) + SESSION_LIFETIMES[s.kind].idleSeconds * 1000;
}

/** How the session's person signed in, for single sign-on enforcement (identity/access.ts). */
export const signInOf = (s: Pick<SessionState, "method" | "ssoTenantId">): SignIn =>
  s.method === "saml" && s.ssoTenantId ? { method: "sso", tenantId: s.ssoTenantId } : PASSWORD_SIGN_IN;
