import { and, eq, isNull, lt } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { type SessionEndReason, type SessionKind, type SessionMethod, sessions } from "../../db/schema";
import { randomToken, sha256Hex } from "../../lib/crypto";
import { newId } from "../../lib/ids";
import { addSeconds, nowIso } from "../../lib/time";
import { forgetPrincipal, forgetSession } from "./principal-cache";
import { SESSION_LIFETIMES, SESSION_TOUCH_MS, type SessionRow, type SessionState } from "./session-state";

/**
 * The one session model (docs/sessions.md): every sign-in (password login, an accepted invite, a
 * password reset, SAML single sign-on, bootstrap, the account pages' sign-in) is a row of `sessions`,
 * and every session credential names its row: a session JWT by its `sid` claim, a browser by a cookie
 * whose SHA-256 is the row's `secretHash`. A credential works while its row is live, so a session can
 * end before its token expires: sign-out, sign-out everywhere, a password reset or change, a deactivation.
 */

export interface NewSession {
  userId: string;
  kind: SessionKind;
  method: SessionMethod;
  /** the tenant whose IdP signed the person in (method saml) */
  ssoTenantId?: string | null;
}

export interface OpenedSession {
  id: string;
  kind: SessionKind;
  /** a cookie session's cookie value: handed to the browser once, only its hash is stored */
  secret: string | null;
  expiresAt: Date;
  /** the insert, to run in the sign-in's own batch */
  statement: ReturnType<typeof insertSession>;
}

const insertSession = (db: ControlDb, row: SessionRow) => db.insert(sessions).values(row);

/** A new session's id (and a cookie session's secret) and the insert that records it; nothing is written yet. */
export async function openSession(db: ControlDb, s: NewSession, now = new Date()): Promise<OpenedSession> {
  const secret = s.kind === "cookie" ? randomToken(32) : null;
  const expiresAt = addSeconds(now, SESSION_LIFETIMES[s.kind].absoluteSeconds);
  const row: SessionRow = {
    id: newId(),
    userId: s.userId,
    kind: s.kind,
    method: s.method,
    ssoTenantId: s.method === "saml" ? (s.ssoTenantId ?? null) : null,
    secretHash: secret ? await sha256Hex(secret) : null,
    createdAt: nowIso(now),
    lastSeenAt: nowIso(now),
    expiresAt: nowIso(expiresAt),
    endedAt: null,
    endReason: null,
  };
  return { id: row.id, kind: s.kind, secret, expiresAt, statement: insertSession(db, row) };
}

/** Ends one session (sign-out). True when it was still open. This isolate forgets it at once. */
export async function endSession(
  db: ControlDb,
  sessionId: string,
  reason: SessionEndReason,
  now = new Date(),
): Promise<boolean> {
  const ended = await db
    .update(sessions)
    .set({ endedAt: nowIso(now), endReason: reason })
    .where(and(eq(sessions.id, sessionId), isNull(sessions.endedAt)))
    .returning({ id: sessions.id });
  forgetSession(sessionId);
  return ended.length > 0;
}

/**
 * The statement that ends every open session of a user, for the batch of the change that ends them
 * (a password reset or change, a deactivation); call `forgetUserSessions` once it committed.
 */
export const endUserSessionsStatement = (db: ControlDb, userId: string, reason: SessionEndReason, now = new Date()) =>
  db
    .update(sessions)
    .set({ endedAt: nowIso(now), endReason: reason })
    .where(and(eq(sessions.userId, userId), isNull(sessions.endedAt)));

/** After `endUserSessionsStatement` committed: this isolate re-reads the user and their sessions at once. */
export const forgetUserSessions = (userId: string) => forgetPrincipal(userId);

/** Ends every open session of a user now (sign out everywhere); returns how many were open. */
export async function endUserSessions(
  db: ControlDb,
  userId: string,
  reason: SessionEndReason,
  now = new Date(),
): Promise<number> {
  const ended = await endUserSessionsStatement(db, userId, reason, now).returning({ id: sessions.id });
  forgetUserSessions(userId);
  for (const s of ended) forgetSession(s.id);
  return ended.length;
}

/**
 * Records activity for the idle lifetime: one conditional write per SESSION_TOUCH_MS at most, skipped
 * while the known value is fresh and guarded in SQL across isolates. Returns the state as touched.
 */
export async function touchSession(db: ControlDb, s: SessionState, now: number): Promise<SessionState> {
  if (now - Date.parse(s.lastSeenAt) < SESSION_TOUCH_MS) return s;
  const stamp = nowIso(new Date(now));
  await db
    .update(sessions)
    .set({ lastSeenAt: stamp })
    .where(
      and(
        eq(sessions.id, s.id),
        isNull(sessions.endedAt),
        lt(sessions.lastSeenAt, nowIso(new Date(now - SESSION_TOUCH_MS))),
      ),
    );
  return { ...s, lastSeenAt: stamp };
}

/** The row a session JWT's `sid` names. */
export const sessionByIdQuery = (db: ControlDb, sessionId: string) =>
  db.select().from(sessions).where(eq(sessions.id, sessionId)).limit(1);
