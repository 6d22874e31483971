import type { Role, ScopeType, TenantRole } from "../../db/schema";
import { ApiError, forbidden } from "../../lib/errors";

export interface RoleGrant {
  role: Role;
  scopeType: ScopeType;
  scopeId: string;
}

/**
 * How the person behind a credential signed in: with a password (login, an invite or reset that set
 * one, bootstrap, the OAuth consent page) or through a tenant's identity provider. A tenant that
 * enforces single sign-on admits its own roles only to a session its own IdP opened.
 */
export type SignIn = { method: "password" } | { method: "sso"; tenantId: string };
export const PASSWORD_SIGN_IN: SignIn = { method: "password" };

/** A user and every role they hold: what the isolate caches per user (principal-cache.ts). */
export interface UserAccount {
  userId: string;
  email: string;
  name: string;
  homeTenantId: string | null;
  roles: RoleGrant[];
}

/** A user acting through one credential: their account, how they signed in, and the session (if any) it belongs to. */
export interface UserPrincipal extends UserAccount {
  kind: "user";
  signIn: SignIn;
  /** the session record a session JWT or cookie names (docs/sessions.md); null for an OAuth grant */
  sessionId: string | null;
}

/** Seam for [agency]/[mcp]: API keys authenticate as a tenant with scopes, not as a user. */
export interface ApiKeyPrincipal {
  kind: "api_key";
  keyId: string;
  tenantId: string;
  scopes: string[];
}

export type Principal = UserPrincipal | ApiKeyPrincipal;

export interface TenantRef {
  id: string;
  agencyId: string;
  isActive: boolean;
  /** the tenant's shard (src/db/shards.ts); absent on a ref built by hand: looked up */
  shard?: number;
  /** set while the tenant moves between shards: writes are fenced */
  movingSince?: string | null;
  /** SSO is enabled and enforced: the tenant's own roles open only to sessions of its IdP (absent: not enforced) */
  ssoEnforced?: boolean;
}

export interface TenantAccess {
  tenantId: string;
  agencyId: string;
  via: "platform" | "tenant" | "agency" | "api_key";
  /** the role the caller acts with inside this tenant */
  role: TenantRole;
  /** the tenant is paused: its own users and keys act as viewer until it is resumed */
  paused: boolean;
}

const RANK: Record<TenantRole, number> = { viewer: 1, tenant_user: 2, manager: 3, tenant_admin: 4 };

export const roleAtLeast = (role: TenantRole, min: TenantRole) => RANK[role] >= RANK[min];

export const isPlatformAdmin = (p: Principal) =>
  p.kind === "user" && p.roles.some((r) => r.role === "platform_admin" && r.scopeType === "platform");

export const administeredAgencies = (p: Principal): string[] =>
  p.kind === "user"
    ? p.roles.filter((r) => r.role === "agency_admin" && r.scopeType === "agency").map((r) => r.scopeId)
    : [];

/**
 * Enforced single sign-on applies to what the tenant grants: its own roles open only to a session its
 * own identity provider opened. Platform and agency scope are not the tenant's to grant, so they stay
 * open to any sign-in (an agency admin is no user of the tenant's IdP).
 */
export const ssoBarsDirectRoles = (p: UserPrincipal, tenant: TenantRef) =>
  Boolean(tenant.ssoEnforced) && !(p.signIn.method === "sso" && p.signIn.tenantId === tenant.id);

/** The person holds a role in the tenant, but this sign-in cannot use it: the tenant enforces SSO. */
export const ssoRequiredFor = (p: Principal, tenant: TenantRef) =>
  p.kind === "user" &&
  ssoBarsDirectRoles(p, tenant) &&
  p.roles.some((r) => r.scopeType === "tenant" && r.scopeId === tenant.id);

/**
 * The spec's access order: platform scope, then a direct tenant role, then agency scope.
 * Platform and agency scope act as tenant_admin. Users of a paused tenant keep read access only.
 * A tenant that enforces SSO gives its roles only to its IdP's sessions (ssoBarsDirectRoles).
 * Returns null when the tenant is not accessible.
 */
export function resolveTenantAccess(p: Principal, tenant: TenantRef): TenantAccess | null {
  const base = { tenantId: tenant.id, agencyId: tenant.agencyId, paused: !tenant.isActive };
  if (p.kind === "api_key") {
    if (p.tenantId !== tenant.id) return null;
    // scopes decide which routes a key reaches (tenantContext); a write scope only opens write routes
    // of its own domain, where the key then acts as a manager unless the tenant is paused
    const writes = tenant.isActive && p.scopes.some((s) => s.startsWith("write:"));
    return { ...base, via: "api_key", role: writes ? "manager" : "viewer" };
  }
  if (isPlatformAdmin(p)) return { ...base, via: "platform", role: "tenant_admin" };
  const direct = ssoBarsDirectRoles(p, tenant)
    ? undefined
    : p.roles
        .filter((r) => r.scopeType === "tenant" && r.scopeId === tenant.id)
        .map((r) => r.role as TenantRole)
        .sort((a, b) => RANK[b] - RANK[a])[0];
  if (direct) return { ...base, via: "tenant", role: tenant.isActive ? direct : "viewer" };
  if (administeredAgencies(p).includes(tenant.agencyId)) return { ...base, via: "agency", role: "tenant_admin" };
  return null;
}

/**
 * The one access check every door passes (REST: `tenantContext`; MCP tools: `skills/run.ts`; agents run
 * behind one of those): the caller reaches the tenant, else 403 "Tenant not accessible" (an unknown
 * tenant and a foreign one look the same).
 */
export function admitTenant(p: Principal, tenant: TenantRef | null): TenantAccess {
  const access = tenant ? resolveTenantAccess(p, tenant) : null;
  if (access) return access;
  // the person holds a role here but signed in another way than the tenant's enforced SSO: say so
  if (tenant && ssoRequiredFor(p, tenant))
    throw new ApiError("FORBIDDEN", "This tenant requires single sign-on", { reason: "sso_required" });
  throw forbidden("Tenant not accessible");
}

/**
 * The one role check every door passes (REST: `requireRole`; MCP tools: a skill's `minRole`, checked
 * before its input is read; an agent's write: the role its door resolved): 403 unless the caller acts
 * with `min` or more. On a paused tenant its own users and API keys act as viewer (resolveTenantAccess),
 * and the refusal says so.
 */
export function requireTenantRole(access: TenantAccess, min: TenantRole, what = `Requires role ${min} or higher`) {
  if (roleAtLeast(access.role, min)) return;
  throw forbidden(access.paused ? `${what}: the tenant is paused, read-only until it is resumed` : what);
}
