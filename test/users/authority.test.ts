// A tenant admin controls only what that tenant grants (issue #44, item 2): every route that changes a
// person, for every kind of person a tenant's user list can show, as the tenant's own admin and as its
// agency's admin acting in it. What the tenant grants is its own roles; the account as a whole (name,
// active flag) belongs to the tenant only when every role the person holds lies in it, and a person's
// platform and agency roles and their roles in other tenants are never the tenant's to touch.
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { roleAssignments, users } from "../../src/db/schema";
import { request } from "../helpers/http";
import { type HttpMethod, operations } from "../helpers/openapi";
import { createWorld, db, seedUser, TEST_PASSWORD, type World } from "../helpers/seed";
import { initializeBody, rawPost } from "../mcp/helpers";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

/** The kinds of person a tenant's user list can show; each holds a role in tenant A and is homed there. */
const KINDS = {
  /** as bootstrap makes them: platform_admin, and tenant_admin of the first tenant */
  platformAdminHomedHere: () => [
    { role: "platform_admin" as const, scopeType: "platform" as const },
    { role: "tenant_admin" as const, scopeType: "tenant" as const, scopeId: w.tenantA.id },
  ],
  /** the admin of A's agency, who also holds a role in A */
  agencyAdminHomedHere: () => [
    { role: "agency_admin" as const, scopeType: "agency" as const, scopeId: w.agencyA.id },
    { role: "manager" as const, scopeType: "tenant" as const, scopeId: w.tenantA.id },
  ],
  /** a user of A who is tenant_admin of another tenant */
  rolesInTwoTenants: () => [
    { role: "tenant_user" as const, scopeType: "tenant" as const, scopeId: w.tenantA.id },
    { role: "tenant_admin" as const, scopeType: "tenant" as const, scopeId: w.tenantB.id },
  ],
  /** everything they hold is A's: the one kind whose account A manages */
  plainTenantUser: () => [{ role: "tenant_user" as const, scopeType: "tenant" as const, scopeId: w.tenantA.id }],
};
type Kind = keyof typeof KINDS;
const ownedByTenant = (kind: Kind) => kind === "plainTenantUser";

const person = (kind: Kind) => seedUser({ grants: KINDS[kind](), tenantId: w.tenantA.id });
type Person = Awaited<ReturnType<typeof person>>;

const rolesOf = async (userId: string) =>
  (await db().select().from(roleAssignments).where(eq(roleAssignments.userId, userId)))
    .map(
      (r) =>
        `${r.role}@${r.scopeType}${r.scopeId ? `:${r.scopeId === w.tenantA.id ? "A" : r.scopeId === w.tenantB.id ? "B" : "agencyA"}` : ""}`,
    )
    .sort();
const userRow = async (id: string) => (await db().select().from(users).where(eq(users.id, id)))[0]!;
const canLogIn = async (email: string) =>
  (await request("POST", "/auth/login", { body: { email, password: TEST_PASSWORD } })).status === 200;

/** A's roles removed, every other role as it was. */
const othersOnly = (before: string[]) => before.filter((r) => !r.endsWith("@tenant:A"));

interface Case {
  call: (actor: ReturnType<World["as"]>, p: Person) => Promise<{ status: number }>;
  /** what the route must leave behind, for a person A owns and for one it does not */
  expect: (kind: Kind, p: Person, before: string[], status: number) => Promise<void>;
}

/**
 * Every user-changing operation of the document (tag Users, not a read), each with its cases. A new
 * route fails the enumeration below until it is given its cases here.
 */
const CASES: Record<string, Record<string, Case>> = {
  "post /v1/users/invite": {
    "invite again": {
      call: (a, p) => a.post("/v1/users/invite", { email: p.email, role: "viewer" }),
      expect: async (_kind, p, before, status) => {
        expect(status).toBe(409);
        expect(await rolesOf(p.id)).toEqual(before);
      },
    },
  },
  "patch /v1/users/{id}": {
    rename: {
      call: (a, p) => a.patch(`/v1/users/${p.id}`, { name: "Renamed By Tenant" }),
      expect: async (kind, p, _before, status) => {
        expect(status).toBe(ownedByTenant(kind) ? 200 : 403);
        expect((await userRow(p.id)).name).toBe(ownedByTenant(kind) ? "Renamed By Tenant" : "Test User");
      },
    },
    deactivate: {
      call: (a, p) => a.patch(`/v1/users/${p.id}`, { isActive: false }),
      expect: async (kind, p, before, status) => {
        expect(status).toBe(ownedByTenant(kind) ? 200 : 403);
        expect((await userRow(p.id)).isActive).toBe(!ownedByTenant(kind));
        expect(await rolesOf(p.id)).toEqual(before);
        expect(await canLogIn(p.email)).toBe(!ownedByTenant(kind));
      },
    },
  },
  "put /v1/users/{id}/roles": {
    "set A's roles": {
      call: (a, p) => a.put(`/v1/users/${p.id}/roles`, { roles: ["viewer"] }),
      expect: async (_kind, p, before, status) => {
        expect(status).toBe(200);
        expect(await rolesOf(p.id)).toEqual([...othersOnly(before), "viewer@tenant:A"].sort());
        expect((await userRow(p.id)).isActive).toBe(true);
      },
    },
  },
  "delete /v1/users/{id}": {
    remove: {
      call: (a, p) => a.delete(`/v1/users/${p.id}`),
      expect: async (kind, p, before, status) => {
        expect(status).toBe(204);
        if (ownedByTenant(kind)) {
          expect((await userRow(p.id)).isActive).toBe(false);
        } else {
          // removing a person who is more than A's takes A's roles only
          expect(await rolesOf(p.id)).toEqual(othersOnly(before));
          expect((await userRow(p.id)).isActive).toBe(true);
          expect(await canLogIn(p.email)).toBe(true);
        }
      },
    },
  },
};

describe("the user-changing routes are enumerated", () => {
  it("every non-read operation tagged Users has its cases here", () => {
    const changing = operations()
      .filter((o) => ((o.op as { tags?: string[] }).tags ?? []).includes("Users") && o.method !== ("get" as HttpMethod))
      .map((o) => `${o.method} ${o.path}`)
      .sort();
    expect(changing).toEqual(Object.keys(CASES).sort());
  });
});

for (const actor of ["tenantAdmin", "agencyAdmin"] as const) {
  describe(`as A's ${actor === "tenantAdmin" ? "tenant admin" : "agency admin"}`, () => {
    for (const [route, cases] of Object.entries(CASES)) {
      for (const [name, c] of Object.entries(cases)) {
        for (const kind of Object.keys(KINDS) as Kind[]) {
          it(`${route} (${name}) on ${kind}`, async () => {
            const p = await person(kind);
            const before = await rolesOf(p.id);
            const res = await c.call(w.as(actor), p);
            await c.expect(kind, p, before, res.status);
          });
        }
      }
    }
  });
}

describe("the platform admin acting in A manages any account", () => {
  it("deactivates a person with roles in two tenants", async () => {
    const p = await person("rolesInTwoTenants");
    expect((await w.as("platformAdmin").patch(`/v1/users/${p.id}`, { isActive: false })).status).toBe(200);
    expect((await userRow(p.id)).isActive).toBe(false);
  });
});

describe("enforced SSO applies to access to that tenant, not to the account", () => {
  let homedInA: Person;
  beforeAll(async () => {
    // homed in A (which will enforce SSO), viewer there, tenant_admin of B
    homedInA = await seedUser({
      grants: [
        { role: "viewer", scopeType: "tenant", scopeId: w.tenantA.id },
        { role: "tenant_admin", scopeType: "tenant", scopeId: w.tenantB.id },
      ],
      tenantId: w.tenantA.id,
    });
    const res = await w.as("tenantAdmin").put("/v1/settings/sso", {
      enabled: true,
      entryPoint: "https://idp.example.test/sso",
      idpEntityId: "https://idp.example.test/metadata",
      idpCertificates: [(await import("../sso/idp")).KEYS.idp1.cert],
      enforceSso: true,
    });
    expect(res.status, res.text).toBe(200);
  });

  it("a person homed in an enforcing tenant still signs in with a password and reaches the other tenant", async () => {
    const login = await request("POST", "/auth/login", { body: { email: homedInA.email, password: TEST_PASSWORD } });
    expect(login.status, login.text).toBe(200);
    const onB = await request("GET", "/v1/locations", { token: login.body.token, tenantId: w.tenantB.id });
    expect(onB.status).toBe(200);
    const onA = await request("GET", "/v1/locations", { token: login.body.token, tenantId: w.tenantA.id });
    expect(onA.status).toBe(403);
    expect(onA.body).toMatchObject({ code: "FORBIDDEN", details: { reason: "sso_required" } });
    // MCP decides access with the same rule (identity/access.ts)
    const mcp = (tenantId: string) =>
      rawPost(initializeBody(), { authorization: `Bearer ${login.body.token}`, "x-tenant-id": tenantId });
    const mcpA = await mcp(w.tenantA.id);
    expect(mcpA.status).toBe(403);
    await mcpA.body?.cancel();
    const mcpB = await mcp(w.tenantB.id);
    expect(mcpB.status).toBe(200);
    await mcpB.body?.cancel();
  });

  it("a password session opened before enforcement no longer opens the tenant's roles", async () => {
    const onA = await request("GET", "/v1/locations", { token: w.users.manager.token, tenantId: w.tenantA.id });
    expect(onA.status).toBe(403);
  });

  it("platform and agency scope are not the tenant's to enforce", async () => {
    for (const who of ["platformAdmin", "agencyAdmin"] as const)
      expect((await w.as(who).get("/v1/locations")).status, who).toBe(200);
  });

  it("a person whose every role is in the enforcing tenant is sent to the IdP at login", async () => {
    const only = await request("POST", "/auth/login", {
      body: { email: w.users.viewer.email, password: TEST_PASSWORD },
    });
    expect(only.status).toBe(401);
    expect(only.body).toMatchObject({ details: { reason: "sso_required" } });
  });

  it("cleans up: enforcement off again", async () => {
    expect((await w.as("platformAdmin").put("/v1/settings/sso", { enforceSso: false })).status).toBe(200);
    const rows = await db()
      .select()
      .from(roleAssignments)
      .where(and(eq(roleAssignments.userId, homedInA.id), eq(roleAssignments.scopeId, w.tenantA.id)));
    expect(rows).toHaveLength(1);
  });
});
