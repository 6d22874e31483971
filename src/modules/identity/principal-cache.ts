import { TtlCache } from "../../lib/ttl-cache";
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

const principals = new TtlCache<UserPrincipal>(PRINCIPAL_TTL_MS, MAX_ENTRIES);
/** null: no such tenant (cached too, so a flood of unknown ids stays off D1) */
const tenantRefs = new TtlCache<TenantRef | null>(PRINCIPAL_TTL_MS, MAX_ENTRIES);

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
