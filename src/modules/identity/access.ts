import type { Role, ScopeType, TenantRole } from "../../db/schema";

export interface RoleGrant {
  role: Role;
  scopeType: ScopeType;
  scopeId: string;
}

export interface UserPrincipal {
  kind: "user";
  userId: string;
  email: string;
  name: string;
  homeTenantId: string | null;
  roles: RoleGrant[];
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
}

export interface TenantAccess {
  tenantId: string;
  agencyId: string;
  via: "platform" | "tenant" | "agency" | "api_key";
  /** the role the caller acts with inside this tenant */
  role: TenantRole;
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
 * The spec's access order: platform scope, then a direct tenant role, then agency scope.
 * Platform and agency scope act as tenant_admin. Users of a paused tenant keep read access only.
 * Returns null when the tenant is not accessible.
 */
export function resolveTenantAccess(p: Principal, tenant: TenantRef): TenantAccess | null {
  const base = { tenantId: tenant.id, agencyId: tenant.agencyId };
  if (p.kind === "api_key") {
    if (p.tenantId !== tenant.id) return null;
    // scopes decide which routes a key reaches (tenantContext); a write scope only opens write routes
    // of its own domain, where the key then acts as a manager unless the tenant is paused
    const writes = tenant.isActive && p.scopes.some((s) => s.startsWith("write:"));
    return { ...base, via: "api_key", role: writes ? "manager" : "viewer" };
  }
  if (isPlatformAdmin(p)) return { ...base, via: "platform", role: "tenant_admin" };
  const direct = p.roles
    .filter((r) => r.scopeType === "tenant" && r.scopeId === tenant.id)
    .map((r) => r.role as TenantRole)
    .sort((a, b) => RANK[b] - RANK[a])[0];
  if (direct) return { ...base, via: "tenant", role: tenant.isActive ? direct : "viewer" };
  if (administeredAgencies(p).includes(tenant.agencyId)) return { ...base, via: "agency", role: "tenant_admin" };
  return null;
}
