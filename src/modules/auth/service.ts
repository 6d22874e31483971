import { eq } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { passwordCredentials, users } from "../../db/schema";
import type { Env } from "../../env";
import { hashPassword, verifyPassword } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { signSessionToken } from "../../lib/jwt";
import { nowIso } from "../../lib/time";
import { openSession } from "../identity/sessions";
import { passwordLoginBlockedBySso } from "../sso/enforcement";
import { toSessionUser } from "./schemas";
import { clearLoginFailures, recordLoginFailure, throttleLogin } from "./throttle";

// A well-formed scrypt hash that no password matches: unknown emails cost the same time as wrong passwords.
export const DUMMY_PASSWORD_HASH =
  "$scrypt$ln=14,r=8,p=5$fGfDmUQlo3HHaX4ZtdQv5g$hhq8WZ9Wi8oebCB0KEPt/MJXmYJNqHbnWz3e3mmN+9s";

const invalidCredentials = () =>
  new ApiError("UNAUTHENTICATED", "Invalid email or password", undefined, { "WWW-Authenticate": 'Bearer realm="api"' });

export type UserRow = typeof users.$inferSelect;

/**
 * The password check every password sign-in shares (POST /auth/login, the account pages, the OAuth
 * consent page): per-email and per-IP throttling, the same 401 for an unknown email, a wrong password
 * and a deactivated account, and sso_required for a person whose every role is in a tenant that
 * enforces SSO. A hash of an older cost is replaced. Opens no session: each door opens its own.
 */
export async function checkPassword(
  db: ControlDb,
  env: Env,
  ip: string | null,
  email: string,
  password: string,
): Promise<UserRow> {
  const keys = { email, ip };
  await throttleLogin(env, keys);
  const row = await db
    .select({ user: users, hash: passwordCredentials.hash })
    .from(users)
    .leftJoin(passwordCredentials, eq(passwordCredentials.userId, users.id))
    .where(eq(users.email, email))
    .get();
  const check = await verifyPassword(password, row?.hash ?? DUMMY_PASSWORD_HASH);
  if (!row?.hash || !check.ok || !row.user.isActive) {
    await recordLoginFailure(env, keys);
    throw invalidCredentials();
  }
  await clearLoginFailures(env, email);
  if (await passwordLoginBlockedBySso(db, row.user)) {
    throw new ApiError(
      "UNAUTHENTICATED",
      "This organization requires single sign-on",
      { reason: "sso_required" },
      {
        "WWW-Authenticate": 'Bearer realm="api"',
      },
    );
  }
  if (check.needsRehash) {
    await db
      .update(passwordCredentials)
      .set({ hash: await hashPassword(password), updatedAt: nowIso() })
      .where(eq(passwordCredentials.userId, row.user.id));
  }
  return row.user;
}

/** POST /auth/login: the password check, then a bearer session (docs/sessions.md) and its JWT. */
export async function login(db: ControlDb, env: Env, ip: string | null, email: string, password: string) {
  const user = await checkPassword(db, env, ip, email, password);
  const session = await openSession(db, { userId: user.id, kind: "bearer", method: "password" });
  await session.statement;
  return { token: await signSessionToken(env, user.id, session.id), user: toSessionUser(user) };
}
