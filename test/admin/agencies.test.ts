import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, roleAssignments } from "../../src/db/schema";
import { emailIdsTo, latestEmailTo, nextEmailTo, tokenIn } from "../helpers/dev-mailbox";
import { request } from "../helpers/http";
import { createWorld, db, seedUser, type World } from "../helpers/seed";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const admin = () => w.as("platformAdmin");

describe("agencies", () => {
  it("creates an agency and invites its first admin in the same call; the invite leads to a working agency login", async () => {
    const res = await admin().post("/admin/agencies", {
      name: "Northwind Marketing",
      slug: "northwind",
      adminEmail: "Boss@Northwind.test",
      adminName: "Nora",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: "Northwind Marketing",
      slug: "northwind",
      isActive: true,
      admin: { email: "boss@northwind.test", role: "agency_admin", invited: true, agencyId: res.body.id },
    });
    const grants = await db().select().from(roleAssignments).where(eq(roleAssignments.userId, res.body.admin.userId));
    expect(grants).toEqual([
      expect.objectContaining({ role: "agency_admin", scopeType: "agency", scopeId: res.body.id }),
    ]);

    const email = await latestEmailTo("boss@northwind.test");
    expect(email?.subject).toContain("Northwind Marketing");
    const setup = await request("POST", "/auth/setup-password", {
      body: { inviteToken: tokenIn(email?.text), name: "Nora N", password: "agency-pass-1" },
    });
    expect(setup.status).toBe(200);
    expect(setup.body.user).toMatchObject({ email: "boss@northwind.test", name: "Nora N", tenantId: null });
    const created = await request("POST", "/agency/tenants", {
      token: setup.body.token,
      body: { name: "Northwind client", slug: "northwind-client" },
    });
    expect(created.body.agencyId).toBe(res.body.id);
    const audit = await db().select().from(auditEvents).where(eq(auditEvents.resourceId, res.body.id));
    expect(audit.map((a) => a.action).sort()).toEqual(["agency.admin_granted", "agency.created"]);
    expect(audit[0]).toMatchObject({ tenantId: null, actorType: "platform_admin", actorId: w.users.platformAdmin.id });
  });

  it("answers 409 to a duplicate slug and 400 to a bad body", async () => {
    expect((await admin().post("/admin/agencies", { name: "Again", slug: "northwind" })).status).toBe(409);
    const bad = await admin().post("/admin/agencies", { name: "", slug: "ok-slug", adminEmail: "nope" });
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(["adminEmail", "name"]);
  });

  it("grants another agency_admin: an existing account is told by email, a second grant is 409, an unknown agency 404", async () => {
    const existing = await seedUser({ grants: [] });
    const seen = await emailIdsTo(existing.email);
    const res = await admin().post(`/admin/agencies/${w.agencyA.id}/admins`, { email: existing.email });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      agencyId: w.agencyA.id,
      userId: existing.id,
      email: existing.email,
      role: "agency_admin",
      invited: false,
    });
    expect((await nextEmailTo(existing.email, seen)).subject).toContain("access");
    const tenants = await request("GET", "/agency/tenants", { token: existing.token });
    expect(tenants.body.data.map((t: { id: string }) => t.id)).toContain(w.tenantA.id);
    expect((await admin().post(`/admin/agencies/${w.agencyA.id}/admins`, { email: existing.email })).status).toBe(409);
    expect((await admin().post("/admin/agencies/nope/admins", { email: "x@example.test" })).status).toBe(404);
  });

  it("lists agencies newest first", async () => {
    const res = await admin().get("/admin/agencies?limit=200");
    const slugs = res.body.data.map((a: { slug: string }) => a.slug);
    expect(slugs).toEqual(expect.arrayContaining(["northwind", "house", w.agencyA.slug, w.agencyB.slug]));
    expect(res.body.total).toBe(slugs.length);
  });
});

describe("tenants across agencies", () => {
  it("pages every tenant with _count", async () => {
    const first = await admin().get("/admin/tenants?limit=1");
    expect(first.body.data).toHaveLength(1);
    expect(first.body.pageInfo.hasNextPage).toBe(true);
    const all = await admin().get("/admin/tenants?limit=200");
    expect(all.body.total).toBeGreaterThanOrEqual(3);
    const a = all.body.data.find((t: { id: string }) => t.id === w.tenantA.id);
    expect(a._count).toEqual({ users: 4, contacts: 0, solicitations: 0, integrations: 0 });
    const second = await admin().get(`/admin/tenants?limit=1&cursor=${first.body.pageInfo.endCursor}`);
    expect(second.body.data[0].id).toBe(all.body.data[1].id);
    const byAgency = await admin().get(`/admin/tenants?agencyId=${w.agencyB.id}`);
    expect(byAgency.body.data.map((t: { id: string }) => t.id)).toEqual([w.tenantB.id]);
  });

  it("shows one tenant with brands, emailConfig and _count; unknown id is 404", async () => {
    const res = await admin().get(`/admin/tenants/${w.tenantB.id}`);
    expect(res.body).toMatchObject({
      id: w.tenantB.id,
      emailConfig: null,
      _count: { users: 1 },
      brands: [expect.objectContaining({ id: w.tenantB.brandId })],
    });
    expect((await admin().get("/admin/tenants/nope")).status).toBe(404);
  });

  it("patches a tenant and records it as a platform_admin action", async () => {
    const res = await admin().patch(`/admin/tenants/${w.tenantB.id}`, { plan: "enterprise", name: "B renamed" });
    expect(res.body).toMatchObject({ plan: "enterprise", name: "B renamed" });
    const [audit] = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, w.tenantB.id), eq(auditEvents.action, "tenant.updated")));
    expect(audit).toMatchObject({ tenantId: w.tenantB.id, actorType: "platform_admin" });
    expect(audit!.previousState).toMatchObject({ plan: "starter" });
    expect((await admin().patch(`/admin/tenants/${w.tenantB.id}`, { plan: "gold" })).status).toBe(400);
  });
});

describe("GET /admin/audit-events", () => {
  it("reads across tenants with filters", async () => {
    await w.as("tenantAdmin").post("/v1/regions", { name: "Audit A" });
    await w.as("tenantBAdmin").post("/v1/regions", { name: "Audit B" });
    const all = await admin().get("/admin/audit-events?action=region.created");
    expect(all.body.data.map((e: { tenantId: string }) => e.tenantId).sort()).toEqual(
      [w.tenantA.id, w.tenantB.id].sort(),
    );
    const onlyB = await admin().get(`/admin/audit-events?action=region.created&tenantId=${w.tenantB.id}`);
    expect(onlyB.body.data).toHaveLength(1);
    expect(onlyB.body.data[0]).toMatchObject({
      resourceType: "region",
      actorId: w.users.tenantBAdmin.id,
      nextState: expect.objectContaining({ name: "Audit B" }),
    });
    const future = await admin().get(
      `/admin/audit-events?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
    );
    expect(future.body.data).toEqual([]);
    expect((await admin().get("/admin/audit-events?from=yesterday")).status).toBe(400);
  });
});
