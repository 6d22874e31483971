import { eq, inArray } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { roleAssignments, sessions, ssoConfigs, tenants, users } from "../../db/schema";
import { sha256Hex } from "../../lib/crypto";
import type { SessionClaims } from "../../lib/jwt";
import type { SignIn, TenantRef, UserAccount, UserPrincipal } from "./access";
import {
  cachedSessionPrincipal,
  cachedTenantRef,
  rememberSessionPrincipal,
  rememberTenantRef,
} from "./principal-cache";
import { type SessionState, sessionLive, sessionState, signInOf } from "./session-state";
import { sessionByIdQuery, touchSession } from "./sessions";

const tenantRefQuery = (db: ControlDb, tenantId: string) =>
  db
    .select({
      id: tenants.id,
      agencyId: tenants.agencyId,
      isActive: tenants.isActive,
      shard: tenants.shard,
      movingSince: tenants.movingSince,
      ssoEnabled: ssoConfigs.enabled,
      enforceSso: ssoConfigs.enforceSso,
    })
    .from(tenants)
    .leftJoin(ssoConfigs, eq(ssoConfigs.tenantId, tenants.id))
    .where(eq(tenants.id, tenantId))
    .limit(1);

type TenantRefRow = Awaited<ReturnType<typeof tenantRefQuery>>[number];

const toTenantRef = ({ ssoEnabled, enforceSso, ...ref }: TenantRefRow): TenantRef => ({
  ...ref,
  ssoEnforced: Boolean(ssoEnabled && enforceSso),
});

const userQuery = (db: ControlDb, userId: string) => db.select().from(users).where(eq(users.id, userId)).limit(1);
const grantsQuery = (db: ControlDb, userId: string) =>
  db
    .select({ role: roleAssignments.role, scopeType: roleAssignments.scopeType, scopeId: roleAssignments.scopeId })
    .from(roleAssignments)
    .where(eq(roleAssignments.userId, userId));

type UserRow = typeof users.$inferSelect;
type GrantRow = Awaited<ReturnType<typeof grantsQuery>>[number];

/** An active user and their grants; null when absent or deactivated. */
const toAccount = (user: UserRow | undefined, grants: GrantRow[]): UserAccount | null =>
  user?.isActive
    ? { userId: user.id, email: user.email, name: user.name, homeTenantId: user.tenantId, roles: grants }
    : null;

const principalOf = (account: UserAccount, signIn: SignIn, sessionId: string | null): UserPrincipal => ({
  kind: "user",
  ...account,
  signIn,
  sessionId,
});

/**
 * Loads an active user and all their role grants in one round trip; null if absent or deactivated.
 * For a credential that is no session (an OAuth grant): `signIn` says how it was obtained.
 */
export async function loadUserPrincipal(db: ControlDb, userId: string, signIn: SignIn): Promise<UserPrincipal | null> {
  const account = await loadUserAccount(db, userId);
  return account ? principalOf(account, signIn, null) : null;
}

/** The user and their grants, in one round trip; null if absent or deactivated. */
export async function loadUserAccount(db: ControlDb, userId: string): Promise<UserAccount | null> {
  const [userRows, grants] = await db.batch([userQuery(db, userId), grantsQuery(db, userId)]);
  return toAccount(userRows[0], grants);
}

/**
 * The principal of a session JWT: its user, their grants and its session record, and (when asked)
 * the tenant the request names. From the isolate's short cache when all are there
 * (principal-cache.ts), else in one D1 round trip that fills it; the tenant middleware then needs no
 * read of its own. Null when the user is gone or deactivated, or the session is not the user's, not a
 * bearer session, or no longer live at `now` (ended, expired, idle).
 */
export async function resolveSessionPrincipal(
  db: ControlDb,
  claims: Pick<SessionClaims, "userId" | "sessionId">,
  tenantId?: string,
  now = Date.now(),
): Promise<{ principal: UserPrincipal | null; tenant?: TenantRef | null }> {
  const cached = cachedSessionPrincipal(claims.userId, claims.sessionId, now);
  let account = cached?.account;
  let session = cached?.session;
  let tenant = tenantId === undefined ? undefined : cachedTenantRef(tenantId, now);
  if (!account || !session || (tenantId !== undefined && tenant === undefined)) {
    const [userRows, grants, sessionRows, tenantRows] = tenantId
      ? await db.batch([
          userQuery(db, claims.userId),
          grantsQuery(db, claims.userId),
          sessionByIdQuery(db, claims.sessionId),
          tenantRefQuery(db, tenantId),
        ])
      : [
          ...(await db.batch([
            userQuery(db, claims.userId),
            grantsQuery(db, claims.userId),
            sessionByIdQuery(db, claims.sessionId),
          ])),
          undefined,
        ];
    account = toAccount(userRows[0], grants) ?? undefined;
    session = sessionRows[0] ? sessionState(sessionRows[0]) : undefined;
    if (account) rememberSessionPrincipal(account, session, now);
    if (tenantId !== undefined && tenantRows !== undefined) {
      tenant = tenantRows[0] ? toTenantRef(tenantRows[0]) : null;
      rememberTenantRef(tenantId, tenant, now);
    }
  }
  const usable =
    account && session && session.userId === account.userId && session.kind === "bearer" && sessionLive(session, now);
  return {
    principal: usable ? principalOf(account!, signInOf(session!), session!.id) : null,
    ...(tenantId === undefined ? {} : { tenant }),
  };
}

/**
 * The principal of a browser session cookie (account pages, the console): the session its value's
 * hash names, if live at `now`, with its user; the session's activity is recorded for the idle
 * lifetime (touchSession). Read from D1 on each call (one round trip, plus a write every few minutes).
 */
export async function resolveCookieSession(
  db: ControlDb,
  secret: string,
  now = Date.now(),
): Promise<{ principal: UserPrincipal; session: SessionState } | null> {
  const secretHash = await sha256Hex(secret);
  const owner = db.select({ id: sessions.userId }).from(sessions).where(eq(sessions.secretHash, secretHash));
  const [sessionRows, userRows, grants] = await db.batch([
    db.select().from(sessions).where(eq(sessions.secretHash, secretHash)).limit(1),
    db.select().from(users).where(inArray(users.id, owner)).limit(1),
    db
      .select({ role: roleAssignments.role, scopeType: roleAssignments.scopeType, scopeId: roleAssignments.scopeId })
      .from(roleAssignments)
      .where(inArray(roleAssignments.userId, owner)),
  ]);
  const found = sessionRows[0] ? sessionState(sessionRows[0]) : null;
  const account = toAccount(userRows[0], grants);
  if (!found || !account || found.kind !== "cookie" || !sessionLive(found, now)) return null;
  const session = await touchSession(db, found, now);
  return { principal: principalOf(account, signInOf(session), session.id), session };
}

export async function findTenantRef(db: ControlDb, tenantId: string): Promise<TenantRef | null> {
  const row = (await tenantRefQuery(db, tenantId))[0];
  return row ? toTenantRef(row) : null;
}
