import { TtlCache } from "../../lib/ttl-cache";
import type { TenantRef, UserAccount } from "./access";
import type { SessionState } from "./session-state";

/**
 * The accounts (user + role grants), session records and tenant references an isolate resolved in the
 * last TTL_MS. A hot client's requests then need no D1 read before their own work. The bound on
 * staleness: a role removed, a user deactivated, a session ended or a tenant paused takes effect at
 * once in the isolate that made the change (it forgets the entry) and within TTL_MS everywhere else,
 * well inside the minute docs/sessions.md promises; API keys already work the same way (30 s).
 * A cached session counts only beside its user's account entry and only if it was read no earlier than
 * that entry: forgetting a user (forgetPrincipal, after every change to them, "sign out everywhere" and a
 * password change included) makes the next read of the account re-read every session of theirs too,
 * even the ones cached before, whichever of their sessions the next request comes with.
 */
export const PRINCIPAL_TTL_MS = 10_000;
const MAX_ENTRIES = 5_000;

/** `at`: when the entry was read from D1 (epoch ms) */
const principals = new TtlCache<{ account: UserAccount; at: number }>(PRINCIPAL_TTL_MS, MAX_ENTRIES);
const sessionStates = new TtlCache<{ session: SessionState; at: number }>(PRINCIPAL_TTL_MS, MAX_ENTRIES);
/** null: no such tenant (cached too, so a flood of unknown ids stays off D1) */
const tenantRefs = new TtlCache<TenantRef | null>(PRINCIPAL_TTL_MS, MAX_ENTRIES);

/** The user's account and this session of theirs, when both are cached and coherent (see above). */
export function cachedSessionPrincipal(
  userId: string,
  sessionId: string,
  now = Date.now(),
): { account: UserAccount; session: SessionState } | undefined {
  const account = principals.get(userId, now);
  const session = account ? sessionStates.get(sessionId, now) : undefined;
  if (!account || !session || session.at < account.at) return undefined;
  return { account: account.account, session: session.session };
}
export const cachedTenantRef = (tenantId: string, now = Date.now()) => tenantRefs.get(tenantId, now);

/** An account and one of its sessions, both just read from D1. */
export function rememberSessionPrincipal(account: UserAccount, session: SessionState | undefined, now = Date.now()) {
  principals.set(account.userId, { account, at: now }, now);
  if (session) sessionStates.set(session.id, { session, at: now }, now);
}

export function rememberTenantRef(tenantId: string, ref: TenantRef | null, now = Date.now()) {
  tenantRefs.set(tenantId, ref, now);
}

/** After a change to the user's grants, active flag, password or sessions. */
export const forgetPrincipal = (userId: string) => principals.delete(userId);
/** After one session ended. */
export const forgetSession = (sessionId: string) => sessionStates.delete(sessionId);
/** After a change to the tenant's status, agency or SSO enforcement. */
export const forgetTenantRef = (tenantId: string) => tenantRefs.delete(tenantId);
