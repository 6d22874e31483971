import { eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { ControlDb, Db } from "../../db/client";
import type { SessionKind } from "../../db/schema";
import { passwordCredentials, users } from "../../db/schema";
import { controlDb } from "../../db/shards";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { auditDbFor, commitControl } from "../../lib/commit";
import type { RequestMeta } from "../../lib/context";
import { hashPassword, verifyPassword } from "../../lib/crypto";
import { ApiError, unauthenticated } from "../../lib/errors";
import { signSessionToken } from "../../lib/jwt";
import { log } from "../../lib/log";
import { nowIso } from "../../lib/time";
import { forgetPrincipal } from "../identity/principal-cache";
import { endUserSessionsStatement, forgetUserSessions, type OpenedSession, openSession } from "../identity/sessions";
import { burnUserTokens, claimUserToken, invalidToken, issueUserToken, sendResetEmail } from "../users/tokens";
import { notifyPasswordChanged } from "./password-changed";
import { toSessionUser } from "./schemas";
import { DUMMY_PASSWORD_HASH, type UserRow } from "./service";
import { clearLoginFailures, recordLoginFailure, throttleLogin } from "./throttle";

const userAudit = (db: Db, meta: RequestMeta, userId: string) => ({
  db,
  meta,
  actor: { type: "user" as const, userId, via: "tenant" as const },
});

/**
 * Account rows live on the control database; the audit row goes to the tenant's shard (so the
 * tenant's GET /v1/audit-events shows it), or the control database for an account of no tenant.
 */
async function commitAccountChange(
  env: Env,
  tenantId: string | null,
  statements: BatchItem<"sqlite">[],
  audit: (auditDb: Db) => BatchItem<"sqlite">,
) {
  const auditDb = await auditDbFor(env, tenantId);
  await commitControl({ db: auditDb, env, control: controlDb(env), defer: () => undefined }, () => statements, [
    audit(auditDb),
  ]);
}

/** Hashes first, then returns the (unrun) upsert for the batch. */
async function passwordUpsert(db: ControlDb, userId: string, password: string) {
  const hash = await hashPassword(password);
  const now = nowIso();
  return {
    statement: db
      .insert(passwordCredentials)
      .values({ userId, hash, updatedAt: now })
      .onConflictDoUpdate({ target: passwordCredentials.userId, set: { hash, updatedAt: now } }),
  };
}

async function activeUser(db: ControlDb, userId: string) {
  const user = await db.select().from(users).where(eq(users.id, userId)).get();
  if (!user?.isActive) throw invalidToken();
  return user;
}

/** POST /auth/setup-password: accepts an invite and signs the user in (a bearer session and its JWT). */
export async function setupPassword(
  db: ControlDb,
  env: Env,
  meta: RequestMeta,
  input: { inviteToken: string; name: string; password: string },
) {
  const { user, session } = await acceptInvite(db, env, meta, input, "bearer");
  return { token: await signSessionToken(env, user.id, session.id), user: toSessionUser(user) };
}

/**
 * Accepts an invite: sets the name and password, and opens the person's session of the door's kind (a bearer
 * session for the API, a cookie session for the console) in the same batch.
 */
export async function acceptInvite(
  db: ControlDb,
  env: Env,
  meta: RequestMeta,
  input: { inviteToken: string; name: string; password: string },
  kind: SessionKind,
): Promise<{ user: UserRow; session: OpenedSession }> {
  const claimed = await claimUserToken(db, input.inviteToken, "invite");
  const user = await activeUser(db, claimed.userId);
  const updatedAt = nowIso();
  const credential = await passwordUpsert(db, user.id, input.password);
  const session = await openSession(db, { userId: user.id, kind, method: "invite" });
  const tenantId = claimed.tenantId ?? user.tenantId;
  await commitAccountChange(
    env,
    tenantId,
    [
      credential.statement,
      session.statement,
      db.update(users).set({ name: input.name, updatedAt }).where(eq(users.id, user.id)),
      burnUserTokens(db, user.id, "invite"),
    ],
    (auditDb) =>
      auditStatement(userAudit(auditDb, meta, user.id), {
        tenantId,
        action: "user.invite_accepted",
        resourceType: "user",
        resourceId: user.id,
        nextState: { name: input.name },
      }),
  );
  forgetPrincipal(user.id);
  return { user: { ...user, name: input.name }, session };
}

/** At most this many reset emails per account per hour, so the form cannot be used to flood an inbox. */
export const RESET_EMAILS_PER_HOUR = 5;

/**
 * Always answers ok. Both branches do the same one lookup before answering; minting the token,
 * storing it and sending the email happen after the response (defer), so the response time does
 * not tell whether the account exists.
 */
export async function forgotPassword(
  db: ControlDb,
  env: Env,
  meta: RequestMeta,
  email: string,
  defer: (work: Promise<unknown>) => void,
) {
  const row = await db
    .select({ id: users.id, tenantId: users.tenantId, email: users.email, isActive: users.isActive })
    .from(users)
    .where(eq(users.email, email))
    .get();
  if (row?.isActive) {
    defer(
      (async () => {
        const quota = await env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`reset:${row.id}`)).hit(
          RESET_EMAILS_PER_HOUR,
          3600,
        );
        if (!quota.allowed) return;
        const reset = await issueUserToken(db, { userId: row.id, purpose: "reset", tenantId: row.tenantId });
        await commitAccountChange(env, row.tenantId, [reset.statement], (auditDb) =>
          auditStatement(
            { db: auditDb, meta, actor: { type: "system", name: "forgot-password" } },
            {
              tenantId: row.tenantId,
              action: "user.password_reset_requested",
              resourceType: "user",
              resourceId: row.id,
            },
          ),
        );
        await sendResetEmail(env, { userId: row.id, to: row.email, token: reset.token });
      })().catch((err) => log.error("reset email failed", { error: String(err) })),
    );
  }
  return { ok: true };
}

/**
 * Sets a new password with a reset token; the token, and every other outstanding reset token, is spent,
 * every earlier session of the account ends and a new one (method reset) signs the person in, all in
 * one batch (docs/sessions.md). Connected apps and API keys are separate credentials and keep working:
 * the "password changed" mail names them.
 */
export async function resetPassword(
  db: ControlDb,
  env: Env,
  meta: RequestMeta,
  input: { token: string; password: string },
  defer: (work: Promise<unknown>) => void,
  now = new Date(),
) {
  const { user, session } = await resetWithToken(db, env, meta, input, defer, "bearer", now);
  return { ok: true, token: await signSessionToken(env, user.id, session.id, now), user: toSessionUser(user) };
}

/** The reset itself, opening the person's new session of the door's kind (bearer: the API; cookie: the console). */
export async function resetWithToken(
  db: ControlDb,
  env: Env,
  meta: RequestMeta,
  input: { token: string; password: string },
  defer: (work: Promise<unknown>) => void,
  kind: SessionKind,
  now = new Date(),
): Promise<{ user: UserRow; session: OpenedSession }> {
  const claimed = await claimUserToken(db, input.token, "reset");
  const user = await activeUser(db, claimed.userId);
  const credential = await passwordUpsert(db, user.id, input.password);
  const session = await openSession(db, { userId: user.id, kind, method: "reset" }, now);
  const tenantId = claimed.tenantId ?? user.tenantId;
  await commitAccountChange(
    env,
    tenantId,
    [
      credential.statement,
      burnUserTokens(db, user.id, "reset"),
      endUserSessionsStatement(db, user.id, "password_reset", now),
      session.statement,
    ],
    (auditDb) =>
      auditStatement(userAudit(auditDb, meta, user.id), {
        tenantId,
        action: "user.password_reset",
        resourceType: "user",
        resourceId: user.id,
      }),
  );
  forgetUserSessions(user.id);
  defer(notifyPasswordChanged(env, user, db, now));
  return { user, session };
}

const wrongCurrentPassword = () =>
  new ApiError("FORBIDDEN", "The current password is not correct", { reason: "current_password_incorrect" });

/**
 * POST /me/password: the signed-in person changes their password, proving the current one (throttled
 * like a login). Every session of the account ends, the one making the change included, and a new one
 * is opened for the caller (a fresh session id after a credential change), all in one batch; the
 * "password changed" mail follows. Connected apps and API keys keep working.
 */
export async function changePassword(
  db: ControlDb,
  env: Env,
  meta: RequestMeta,
  userId: string,
  input: { currentPassword: string; newPassword: string },
  defer: (work: Promise<unknown>) => void,
  now = new Date(),
) {
  const { user, session } = await changeOwnPassword(db, env, meta, userId, input, defer, "bearer", now);
  return { token: await signSessionToken(env, userId, session.id, now), user: toSessionUser(user) };
}

/** The change itself, opening the caller's new session of the door's kind (bearer: the API; cookie: the console). */
export async function changeOwnPassword(
  db: ControlDb,
  env: Env,
  meta: RequestMeta,
  userId: string,
  input: { currentPassword: string; newPassword: string },
  defer: (work: Promise<unknown>) => void,
  kind: SessionKind,
  now = new Date(),
): Promise<{ user: UserRow; session: OpenedSession }> {
  const row = await db
    .select({ user: users, hash: passwordCredentials.hash })
    .from(users)
    .leftJoin(passwordCredentials, eq(passwordCredentials.userId, users.id))
    .where(eq(users.id, userId))
    .get();
  if (!row?.user.isActive) throw unauthenticated();
  const keys = { email: row.user.email, ip: meta.ip };
  await throttleLogin(env, keys);
  const check = await verifyPassword(input.currentPassword, row.hash ?? DUMMY_PASSWORD_HASH);
  if (!row.hash || !check.ok) {
    await recordLoginFailure(env, keys);
    throw wrongCurrentPassword();
  }
  await clearLoginFailures(env, row.user.email);
  const credential = await passwordUpsert(db, userId, input.newPassword);
  const session = await openSession(db, { userId, kind, method: "password" }, now);
  await commitAccountChange(
    env,
    row.user.tenantId,
    [credential.statement, endUserSessionsStatement(db, userId, "password_changed", now), session.statement],
    (auditDb) =>
      auditStatement(userAudit(auditDb, meta, userId), {
        tenantId: row.user.tenantId,
        action: "user.password_changed",
        resourceType: "user",
        resourceId: userId,
      }),
  );
  forgetUserSessions(userId);
  defer(notifyPasswordChanged(env, row.user, db, now));
  return { user: row.user, session };
}
