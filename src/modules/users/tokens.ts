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
  const id = newId();
  const statement = db.insert(userTokens).values({
    id,
    userId: o.userId,
    purpose: o.purpose,
    tokenHash: await sha256Hex(token),
    tenantId: o.tenantId,
    expiresAt: nowIso(TOKEN_TTL[o.purpose](now)),
    usedAt: null,
    createdAt: nowIso(now),
  });
  return { id, token, statement };
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

/**
 * Burns every outstanding token of a purpose (a reset invalidates older reset links); given a tenant,
 * only the tokens issued for it (a tenant admin's resend or revoke leaves another tenant's invite alone).
 */
export const burnUserTokens = (db: ControlDb, userId: string, purpose: UserTokenPurpose, tenantId?: string) =>
  db
    .update(userTokens)
    .set({ usedAt: nowIso() })
    .where(
      and(
        eq(userTokens.userId, userId),
        eq(userTokens.purpose, purpose),
        isNull(userTokens.usedAt),
        tenantId === undefined ? undefined : eq(userTokens.tenantId, tenantId),
      ),
    );

const link = (baseUrl: string, path: string, token: string) => `${baseUrl}${path}?token=${encodeURIComponent(token)}`;

// Account mail: through the platform's sender only, never the tenant's transport, and in the look the
// person's roles decide (account-mail.ts): each template gets the origin its links must use.

export function sendInviteEmail(env: Env, o: { userId: string; to: string; token: string; invitedTo: string }) {
  return sendAccountMail(env, {
    kind: "invite",
    userId: o.userId,
    to: o.to,
    subject: `You are invited to ${o.invitedTo}`,
    text: (base) =>
      `You have been invited to ${o.invitedTo}.\n\n` +
      `Set your password within 7 days: ${link(base, "/setup-password", o.token)}\n` +
      `(or POST /auth/setup-password with inviteToken: ${o.token})\n`,
  });
}

export function sendAccessGrantedEmail(env: Env, o: { userId: string; to: string; grantedTo: string }) {
  return sendAccountMail(env, {
    kind: "access_granted",
    userId: o.userId,
    to: o.to,
    subject: `You now have access to ${o.grantedTo}`,
    text: () => `Your existing account now has access to ${o.grantedTo}. Sign in as usual.\n`,
  });
}

export function sendResetEmail(env: Env, o: { userId: string; to: string; token: string }) {
  return sendAccountMail(env, {
    kind: "password_reset",
    userId: o.userId,
    to: o.to,
    subject: "Reset your password",
    text: (base) =>
      `Someone asked to reset the password of this account. If it was you, choose a new one within 1 hour: ` +
      `${link(base, "/reset-password", o.token)}\n(or POST /auth/reset-password with token: ${o.token})\n` +
      `If it was not you, ignore this message.\n`,
  });
}

/** What the "your password was changed" mail lists: the credentials a password change leaves working. */
export interface SurvivingCredentials {
  /** the user's connected apps (OAuth grants); null when they could not be listed */
  apps: { clientName: string; tenantName: string | null }[] | null;
  /** API keys the user minted that still work */
  keys: { id: string; name: string; prefix: string; tenantName: string }[];
}

export function sendPasswordChangedEmail(env: Env, o: SurvivingCredentials & { userId: string; to: string; at: Date }) {
  const apps = (base: string) =>
    o.apps === null
      ? `Review the apps connected to your account at ${base}/app/connected-apps.\n`
      : o.apps.length === 0
        ? `No apps are connected to your account (${base}/app/connected-apps lists them).\n`
        : `These apps you connected keep their access (a password change does not end them):\n` +
          o.apps
            .map((a) => `- ${oneLine(a.clientName)}${a.tenantName ? ` (for ${oneLine(a.tenantName)})` : ""}\n`)
            .join("") +
          `Disconnect any you do not recognise at ${base}/app/connected-apps.\n`;
  const keys =
    o.keys.length === 0
      ? ""
      : `\nThese API keys you created keep working (they belong to their tenant, not to your sign-in):\n` +
        o.keys.map((k) => `- "${oneLine(k.name)}" (${k.prefix}…, id ${k.id}) in ${oneLine(k.tenantName)}\n`).join("") +
        `A tenant admin of that tenant revokes a key with DELETE /v1/api-keys/{id} (header x-tenant-id).\n`;
  return sendAccountMail(env, {
    kind: "password_changed",
    userId: o.userId,
    to: o.to,
    subject: "Your password was changed",
    text: (base) =>
      `The password of ${o.to} was changed at ${o.at.toISOString()}. Every session signed in before then is signed out.\n` +
      `If you did not change it, reset it now (POST /auth/forgot-password with this address) and tell your administrator.\n\n` +
      apps(base) +
      keys,
  });
}

/** Names typed by others (an app's registered name, a key's name) stay on one line of the mail. */
const oneLine = (s: string) => s.replace(/[\r\n\t]+/g, " ").slice(0, 200);
