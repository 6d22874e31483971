import { and, eq, gt, isNull } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { type UserTokenPurpose, userTokens } from "../../db/schema";
import type { Env } from "../../env";
import { randomToken, sha256Hex } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { addDays, addHours, addSeconds, nowIso } from "../../lib/time";
import { sendAccountMail } from "../../providers/messaging/account-mail";

/**
 * decisions.md: invites last 7 days, reset tokens 1 hour; the code SAML sign-in hands the console is spent
 * within seconds ("SAML back to the console"): a minute covers the two redirects and a slow tap.
 */
export const TOKEN_TTL: Record<UserTokenPurpose, (from: Date) => Date> = {
  invite: (d) => addDays(d, 7),
  reset: (d) => addHours(d, 1),
  sso: (d) => addSeconds(d, 60),
};

export const invalidToken = () => new ApiError("INVALID_TOKEN", "The token is invalid or has expired");

/** A fresh raw token and the insert that stores only its hash; run the insert in the change's batch. */
export async function issueUserToken(
  db: ControlDb,
  o: { userId: string; purpose: UserTokenPurpose; tenantId: string | null },
) {
  const token = randomToken();
  const now = new Date();
  const statement = db.insert(userTokens).values({
    id: newId(),
    userId: o.userId,
    purpose: o.purpose,
    tokenHash: await sha256Hex(token),
    tenantId: o.tenantId,
    expiresAt: nowIso(TOKEN_TTL[o.purpose](now)),
    usedAt: null,
    createdAt: nowIso(now),
  });
  return { token, statement };
}

/**
 * Marks the token used and returns it, in one conditional UPDATE: of two concurrent uses only one
 * gets the row. Unknown, used, expired or wrong-purpose tokens are INVALID_TOKEN.
 */
export async function claimUserToken(db: ControlDb, token: string, purpose: UserTokenPurpose) {
  const now = nowIso();
  const row = await db
    .update(userTokens)
    .set({ usedAt: now })
    .where(
      and(
        eq(userTokens.tokenHash, await sha256Hex(token)),
        eq(userTokens.purpose, purpose),
        isNull(userTokens.usedAt),
        gt(userTokens.expiresAt, now),
      ),
    )
    .returning()
    .get();
  if (!row) throw invalidToken();
  return row;
}

/** The token's row while it is usable (unknown, used, expired or wrong-purpose: null), without spending it. */
export async function peekUserToken(db: ControlDb, token: string, purpose: UserTokenPurpose) {
  return (
    (await db
      .select()
      .from(userTokens)
      .where(
        and(
          eq(userTokens.tokenHash, await sha256Hex(token)),
          eq(userTokens.purpose, purpose),
          isNull(userTokens.usedAt),
          gt(userTokens.expiresAt, nowIso()),
        ),
      )
      .get()) ?? null
  );
}

/** Burns every outstanding token of a purpose (a reset invalidates older reset links). */
export const burnUserTokens = (db: ControlDb, userId: string, purpose: UserTokenPurpose) =>
  db
    .update(userTokens)
    .set({ usedAt: nowIso() })
    .where(and(eq(userTokens.userId, userId), eq(userTokens.purpose, purpose), isNull(userTokens.usedAt)));

const link = (env: Env, path: string, token: string) =>
  `${env.PUBLIC_BASE_URL}${path}?token=${encodeURIComponent(token)}`;

// Account mail: through the platform's sender only, never the tenant's transport (account-mail.ts).
// `brandTenantId` only picks the white label the message wears.

export function sendInviteEmail(
  env: Env,
  o: { brandTenantId: string | null; to: string; token: string; invitedTo: string },
) {
  return sendAccountMail(env, {
    kind: "invite",
    brandTenantId: o.brandTenantId,
    to: o.to,
    subject: `You are invited to ${o.invitedTo}`,
    text:
      `You have been invited to ${o.invitedTo}.\n\n` +
      `Set your password within 7 days: ${link(env, "/setup-password", o.token)}\n` +
      `(or POST /auth/setup-password with inviteToken: ${o.token})\n`,
  });
}

export function sendAccessGrantedEmail(env: Env, o: { brandTenantId: string | null; to: string; grantedTo: string }) {
  return sendAccountMail(env, {
    kind: "access_granted",
    brandTenantId: o.brandTenantId,
    to: o.to,
    subject: `You now have access to ${o.grantedTo}`,
    text: `Your existing account now has access to ${o.grantedTo}. Sign in as usual.\n`,
  });
}

export function sendResetEmail(env: Env, o: { brandTenantId: string | null; to: string; token: string }) {
  return sendAccountMail(env, {
    kind: "password_reset",
    brandTenantId: o.brandTenantId,
    to: o.to,
    subject: "Reset your password",
    text:
      `Someone asked to reset the password of this account. If it was you, choose a new one within 1 hour: ` +
      `${link(env, "/reset-password", o.token)}\n(or POST /auth/reset-password with token: ${o.token})\n` +
      `If it was not you, ignore this message.\n`,
  });
}
