import { eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { ControlDb, Db } from "../../db/client";
import { passwordCredentials, users } from "../../db/schema";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { auditDbFor, commitControl } from "../../lib/commit";
import type { RequestMeta } from "../../lib/context";
import { hashPassword } from "../../lib/crypto";
import { signSessionToken } from "../../lib/jwt";
import { log } from "../../lib/log";
import { nowIso } from "../../lib/time";
import { forgetPrincipal } from "../identity/principal-cache";
import { burnUserTokens, claimUserToken, invalidToken, issueUserToken, sendResetEmail } from "../users/tokens";
import { toSessionUser } from "./schemas";

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
  await commitControl({ db: auditDb, env, defer: () => undefined }, () => statements, [audit(auditDb)]);
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

/** Accepts an invite: sets the name and password, and signs the user in. */
export async function setupPassword(
  db: ControlDb,
  env: Env,
  meta: RequestMeta,
  input: { inviteToken: string; name: string; password: string },
) {
  const claimed = await claimUserToken(db, input.inviteToken, "invite");
  const user = await activeUser(db, claimed.userId);
  const updatedAt = nowIso();
  const credential = await passwordUpsert(db, user.id, input.password);
  const tenantId = claimed.tenantId ?? user.tenantId;
  await commitAccountChange(
    env,
    tenantId,
    [
      credential.statement,
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
  return { token: await signSessionToken(env, user.id), user: toSessionUser({ ...user, name: input.name }) };
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
        await sendResetEmail(env, { brandTenantId: row.tenantId, to: row.email, token: reset.token });
      })().catch((err) => log.error("reset email failed", { error: String(err) })),
    );
  }
  return { ok: true };
}

/** Sets a new password with a reset token; the token, and every other outstanding reset token, is spent. */
export async function resetPassword(
  db: ControlDb,
  env: Env,
  meta: RequestMeta,
  input: { token: string; password: string },
) {
  const claimed = await claimUserToken(db, input.token, "reset");
  const user = await activeUser(db, claimed.userId);
  const credential = await passwordUpsert(db, user.id, input.password);
  const tenantId = claimed.tenantId ?? user.tenantId;
  await commitAccountChange(env, tenantId, [credential.statement, burnUserTokens(db, user.id, "reset")], (auditDb) =>
    auditStatement(userAudit(auditDb, meta, user.id), {
      tenantId,
      action: "user.password_reset",
      resourceType: "user",
      resourceId: user.id,
    }),
  );
  return { ok: true };
}
