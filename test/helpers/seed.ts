import { env } from "cloudflare:workers";
import {
  agencies,
  brands,
  HOUSE_AGENCY_ID,
  passwordCredentials,
  type Role,
  roleAssignments,
  type ScopeType,
  tenants,
  users,
} from "../../src/db/schema";
import { controlDb, mirrorTenant, shardDb } from "../../src/db/shards";
import { hashPassword } from "../../src/lib/crypto";
import { newId } from "../../src/lib/ids";
import { signSessionToken } from "../../src/lib/jwt";
import { nowIso } from "../../src/lib/time";
import { openSession } from "../../src/modules/identity/sessions";
import { client } from "./http";

/** Shard 0, which in tests (as in a one-database deployment) is the control database too: see `control` for its control-plane role. */
export const db = () => shardDb(env, 0);
/** The control database (docs/scaling.md). */
export const control = () => controlDb(env);
export const TEST_PASSWORD = "correct horse battery";

let passwordHash: Promise<string> | undefined;
/** scrypt at production cost is slow; hash the shared test password once per file. */
const testPasswordHash = () => (passwordHash ??= hashPassword(TEST_PASSWORD));

let seq = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(seq++).toString(36)}`;

export async function seedAgency(name = unique("agency")) {
  const now = nowIso();
  const row = { id: newId(), name, slug: name.toLowerCase(), isActive: true, createdAt: now, updatedAt: now };
  await db().insert(agencies).values(row);
  return row;
}

/**
 * A tenant with its default brand: the directory row on the control database, its mirror and brand
 * on `shard` (default 0, the control database itself: `db()` then reaches its rows).
 */
export async function seedTenant(o: { agencyId?: string; name?: string; isActive?: boolean; shard?: number } = {}) {
  const now = nowIso();
  const slug = unique("tenant");
  const tenant = {
    id: newId(),
    agencyId: o.agencyId ?? HOUSE_AGENCY_ID,
    slug,
    name: o.name ?? slug,
    plan: "starter" as const,
    isActive: o.isActive ?? true,
    pausedAt: null,
    pausedReason: null,
    shard: o.shard ?? 0,
    movingSince: null,
    createdAt: now,
    updatedAt: now,
  };
  const brand = {
    id: newId(),
    tenantId: tenant.id,
    name: `${tenant.name} brand`,
    slug: "default",
    createdAt: now,
    updatedAt: now,
  };
  await db().insert(tenants).values(tenant);
  await mirrorTenant(env, tenant);
  await shardDb(env, tenant.shard).insert(brands).values(brand);
  return { ...tenant, brandId: brand.id };
}

/** The database holding a tenant's rows (its shard), for seeding and asserting tenant-owned rows. */
export const shardOf = (tenant: { shard: number }) => shardDb(env, tenant.shard);

export interface Grant {
  role: Role;
  scopeType: ScopeType;
  scopeId?: string;
}

/** A user with the given grants, the shared test password and a ready session token. */
export async function seedUser(o: { grants: Grant[]; tenantId?: string | null; email?: string; isActive?: boolean }) {
  const now = nowIso();
  const user = {
    id: newId(),
    tenantId: o.tenantId ?? null,
    email: o.email ?? `${unique("user")}@example.test`,
    name: "Test User",
    isActive: o.isActive ?? true,
    createdAt: now,
    updatedAt: now,
  };
  const d = db();
  await d.batch([
    d.insert(users).values(user),
    d.insert(passwordCredentials).values({ userId: user.id, hash: await testPasswordHash(), updatedAt: now }),
    ...o.grants.map((g) =>
      d.insert(roleAssignments).values({
        id: newId(),
        userId: user.id,
        role: g.role,
        scopeType: g.scopeType,
        scopeId: g.scopeId ?? "",
        createdAt: now,
      }),
    ),
  ]);
  return { ...user, ...(await sessionFor(user.id)) };
}

/**
 * A fresh bearer session for the user, recorded as POST /auth/login records it (docs/sessions.md),
 * and its JWT: `token` works until the session ends.
 */
export async function sessionFor(userId: string, now = new Date()) {
  const session = await openSession(control(), { userId, kind: "bearer", method: "password" }, now);
  await session.statement;
  return { token: await signSessionToken(env, userId, session.id, now), sessionId: session.id };
}

export const TENANT_ROLE_NAMES = ["tenantAdmin", "manager", "tenantUser", "viewer"] as const;
export const ACTOR_NAMES = ["platformAdmin", ...TENANT_ROLE_NAMES, "agencyAdmin", "otherAgencyAdmin"] as const;
export type ActorName = (typeof ACTOR_NAMES)[number];

/**
 * Two tenants in two agencies, and a user for every way of reaching tenant A:
 * platform admin, each tenant role on A, the admin of A's agency, and the admin of B's agency.
 * `as(name)` returns a client already pointed at tenant A.
 */
export async function createWorld(o: { shardA?: number; shardB?: number } = {}) {
  const agencyA = await seedAgency();
  const agencyB = await seedAgency();
  const tenantA = await seedTenant({ agencyId: agencyA.id, shard: o.shardA });
  const tenantB = await seedTenant({ agencyId: agencyB.id, shard: o.shardB });
  const t = (role: Role) => ({
    grants: [{ role, scopeType: "tenant" as const, scopeId: tenantA.id }],
    tenantId: tenantA.id,
  });
  const users = {
    platformAdmin: await seedUser({ grants: [{ role: "platform_admin", scopeType: "platform" }] }),
    tenantAdmin: await seedUser(t("tenant_admin")),
    manager: await seedUser(t("manager")),
    tenantUser: await seedUser(t("tenant_user")),
    viewer: await seedUser(t("viewer")),
    agencyAdmin: await seedUser({ grants: [{ role: "agency_admin", scopeType: "agency", scopeId: agencyA.id }] }),
    otherAgencyAdmin: await seedUser({ grants: [{ role: "agency_admin", scopeType: "agency", scopeId: agencyB.id }] }),
    /** tenant admin of tenant B, for cross-tenant checks */
    tenantBAdmin: await seedUser({
      grants: [{ role: "tenant_admin", scopeType: "tenant", scopeId: tenantB.id }],
      tenantId: tenantB.id,
    }),
  };
  return {
    agencyA,
    agencyB,
    tenantA,
    tenantB,
    users,
    as: (name: keyof typeof users, tenantId: string = name === "tenantBAdmin" ? tenantB.id : tenantA.id) =>
      client(users[name].token, tenantId),
  };
}

export type World = Awaited<ReturnType<typeof createWorld>>;
