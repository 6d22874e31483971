import type { TenantRef, UserPrincipal } from "./access";

/**
 * The session principals (user + role grants) and tenant references an isolate resolved in the
 * last TTL_MS. A hot client's requests then need no D1 read before their own work. The bound on
 * staleness: a role removed, a user deactivated or a tenant paused takes effect at once in the
 * isolate that made the change (it forgets the entry) and within TTL_MS everywhere else; API keys
 * already work the same way (30 s).
 */
export const PRINCIPAL_TTL_MS = 10_000;
const MAX_ENTRIES = 5_000;

class TtlMap<T> {
  private entries = new Map<string, { value: T; at: number }>();

  get(key: string, now: number): T | undefined {
    const e = this.entries.get(key);
    if (e && now - e.at < PRINCIPAL_TTL_MS) return e.value;
    if (e) this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: T, now: number) {
    this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, at: now });
  }

  delete(key: string) {
    this.entries.delete(key);
  }
}

const principals = new TtlMap<UserPrincipal>();
/** null: no such tenant (cached too, so a flood of unknown ids stays off D1) */
const tenantRefs = new TtlMap<TenantRef | null>();

export const cachedPrincipal = (userId: string, now = Date.now()) => principals.get(userId, now);
export const cachedTenantRef = (tenantId: string, now = Date.now()) => tenantRefs.get(tenantId, now);

export function rememberPrincipal(principal: UserPrincipal, now = Date.now()) {
  principals.set(principal.userId, principal, now);
}

export function rememberTenantRef(tenantId: string, ref: TenantRef | null, now = Date.now()) {
  tenantRefs.set(tenantId, ref, now);
}

/** After a change to the user's grants or active flag. */
export const forgetPrincipal = (userId: string) => principals.delete(userId);
/** After a change to the tenant's status or agency. */
export const forgetTenantRef = (tenantId: string) => tenantRefs.delete(tenantId);
