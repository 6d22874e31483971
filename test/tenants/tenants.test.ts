import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, brands, tenants } from "../../src/db/schema";
import { latestEmailTo, tokenIn } from "../helpers/dev-mailbox";
import { request } from "../helpers/http";
import { createWorld, db, seedAgency, seedUser, TEST_PASSWORD, type World } from "../helpers/seed";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const agency = () => w.as("agencyAdmin");
const auditFor = (resourceId: string, action: string) =>
  db()
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.resourceId, resourceId), eq(auditEvents.action, action)));

describe("POST /agency/tenants", () => {
  it("creates the tenant and exactly one default brand in the caller's agency", async () => {
    const res = await agency().post("/agency/tenants", {
      name: "Bright Smiles",
      slug: "bright-smiles",
      plan: "growth",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: "Bright Smiles",
      slug: "bright-smiles",
      plan: "growth",
      isActive: true,
      pausedAt: null,
      pausedReason: null,
      agencyId: w.agencyA.id,
      emailConfig: null,
      _count: { users: 0, contacts: 0, solicitations: 0, integrations: 0 },
    });
    expect(res.body.brands).toEqual([
      expect.objectContaining({ name: "Bright Smiles", slug: "bright-smiles", isActive: true, tenantId: res.body.id }),
    ]);
    const stored = await db().select().from(brands).where(eq(brands.tenantId, res.body.id));
    expect(stored).toHaveLength(1);
    const [audit] = await auditFor(res.body.id, "tenant.created");
    expect(audit).toMatchObject({ tenantId: res.body.id, actorId: w.users.agencyAdmin.id, actorType: "user" });
    expect(audit!.metadata).toMatchObject({ via: "agency" });
  });

  it("takes brandName and brandSlug for the default brand", async () => {
    const res = await agency().post("/agency/tenants", {
      name: "Holding Co",
      slug: "holding-co",
      brandName: "Shiny Teeth",
      brandSlug: "shiny",
    });
    expect(res.body.brands).toEqual([expect.objectContaining({ name: "Shiny Teeth", slug: "shiny" })]);
    expect(res.body.plan).toBe("starter");
  });

  it("answers 409 to a duplicate slug and 400 to an invalid one", async () => {
    const dup = await agency().post("/agency/tenants", { name: "Again", slug: "bright-smiles" });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("CONFLICT");
    const bad = await agency().post("/agency/tenants", { name: "Bad", slug: "Not A Slug" });
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues).toEqual([expect.objectContaining({ path: "slug" })]);
  });

  it("needs agencyId only when the caller administers several agencies", async () => {
    const third = await seedAgency();
    const multi = await seedUser({
      grants: [
        { role: "agency_admin", scopeType: "agency", scopeId: w.agencyA.id },
        { role: "agency_admin", scopeType: "agency", scopeId: third.id },
      ],
    });
    const missing = await request("POST", "/agency/tenants", {
      token: multi.token,
      body: { name: "M", slug: "multi-a" },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.details.issues[0].path).toBe("agencyId");
    const ok = await request("POST", "/agency/tenants", {
      token: multi.token,
      body: { name: "M", slug: "multi-b", agencyId: third.id },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.agencyId).toBe(third.id);
    const foreign = await agency().post("/agency/tenants", {
      name: "F",
      slug: "foreign-agency",
      agencyId: w.agencyB.id,
    });
    expect(foreign.status).toBe(403);
    const platform = await w.as("platformAdmin").post("/agency/tenants", { name: "P", slug: "platform-made" });
    expect(platform.body.agencyId).toBe("agency_house");
  });
});

describe("GET /agency/tenants and /agency/tenants/{id}", () => {
  it("lists only the tenants the caller's agency owns, with _count", async () => {
    const mine = await agency().get("/agency/tenants?limit=200");
    const ids = mine.body.data.map((t: { id: string }) => t.id);
    expect(ids).toContain(w.tenantA.id);
    expect(ids).not.toContain(w.tenantB.id);
    expect(mine.body.data.every((t: { agencyId: string }) => t.agencyId === w.agencyA.id)).toBe(true);
    // tenant A has four users with tenant roles (createWorld)
    expect(mine.body.data.find((t: { id: string }) => t.id === w.tenantA.id)._count.users).toBe(4);
    const theirs = await w.as("otherAgencyAdmin").get("/agency/tenants");
    expect(theirs.body.data.map((t: { id: string }) => t.id)).toEqual([w.tenantB.id]);
  });

  it("returns the detail with brands, and 404 for another agency's tenant", async () => {
    const res = await agency().get(`/agency/tenants/${w.tenantA.id}`);
    expect(res.body).toMatchObject({ id: w.tenantA.id, brands: [expect.objectContaining({ id: w.tenantA.brandId })] });
    const other = await w.as("otherAgencyAdmin").get(`/agency/tenants/${w.tenantA.id}`);
    expect(other.status).toBe(404);
    expect(other.body.code).toBe("NOT_FOUND");
  });
});

describe("PATCH /agency/tenants/{id}: rename, plan, pause and resume", () => {
  let id = "";
  let manager: Awaited<ReturnType<typeof seedUser>>;
  beforeAll(async () => {
    id = (await agency().post("/agency/tenants", { name: "Pausable", slug: "pausable" })).body.id;
    manager = await seedUser({ grants: [{ role: "manager", scopeType: "tenant", scopeId: id }], tenantId: id });
  });

  it("renames and changes plan", async () => {
    const res = await agency().patch(`/agency/tenants/${id}`, { name: "Pausable Inc", plan: "enterprise" });
    expect(res.body).toMatchObject({ name: "Pausable Inc", plan: "enterprise", isActive: true });
    expect(await auditFor(id, "tenant.updated")).toHaveLength(1);
  });

  it("pauses: pausedAt and pausedReason set, the tenant's users become read-only, agency admins still write", async () => {
    const res = await agency().patch(`/agency/tenants/${id}`, { isActive: false, pausedReason: "Unpaid invoice" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ isActive: false, pausedReason: "Unpaid invoice" });
    expect(Date.parse(res.body.pausedAt)).toBeGreaterThan(Date.now() - 60_000);
    const row = await db().select().from(tenants).where(eq(tenants.id, id)).get();
    expect(row).toMatchObject({ isActive: false, pausedReason: "Unpaid invoice" });

    const write = await request("POST", "/v1/locations", {
      token: manager.token,
      tenantId: id,
      body: { name: "Blocked" },
    });
    expect(write.status).toBe(403);
    const read = await request("GET", "/v1/locations", { token: manager.token, tenantId: id });
    expect(read.status).toBe(200);
    const me = await request("GET", "/me", { token: manager.token, tenantId: id });
    expect(me.body.tenantAccess).toEqual({ tenantId: id, via: "tenant", role: "viewer" });
    const agencyWrite = await request("POST", "/v1/locations", {
      token: w.users.agencyAdmin.token,
      tenantId: id,
      body: { name: "Still ok" },
    });
    expect(agencyWrite.status).toBe(201);
    const [audit] = await auditFor(id, "tenant.paused");
    expect(audit!.nextState).toMatchObject({ isActive: false, pausedReason: "Unpaid invoice" });
  });

  it("refuses pausedReason on an active tenant", async () => {
    const res = await w.as("agencyAdmin").patch(`/agency/tenants/${w.tenantA.id}`, { pausedReason: "why" });
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0].path).toBe("pausedReason");
  });

  it("resumes: both pause fields cleared and writes work again", async () => {
    const res = await agency().patch(`/agency/tenants/${id}`, { isActive: true });
    expect(res.body).toMatchObject({ isActive: true, pausedAt: null, pausedReason: null });
    const write = await request("POST", "/v1/locations", {
      token: manager.token,
      tenantId: id,
      body: { name: "Back" },
    });
    expect(write.status).toBe(201);
    expect(await auditFor(id, "tenant.resumed")).toHaveLength(1);
  });
});

describe("tenant users through /agency", () => {
  it("creates a user with a password who can log in at once", async () => {
    const res = await agency().post(`/agency/tenants/${w.tenantA.id}/users`, {
      email: "Direct@Example.test",
      name: "Dee",
      role: "manager",
      password: TEST_PASSWORD,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      email: "direct@example.test",
      name: "Dee",
      tenantId: w.tenantA.id,
      roles: ["manager"],
      invitePending: false,
    });
    const login = await request("POST", "/auth/login", {
      body: { email: "direct@example.test", password: TEST_PASSWORD },
    });
    expect(login.status).toBe(200);
    const list = await agency().get(`/agency/tenants/${w.tenantA.id}/users?limit=200`);
    expect(list.body.data.find((u: { id: string }) => u.id === res.body.id)).toMatchObject({ roles: ["manager"] });
  });

  it("invites without a password (outbox email) and refuses a second add of the same user", async () => {
    const res = await agency().post(`/agency/tenants/${w.tenantA.id}/users`, {
      email: "invitee@example.test",
      role: "viewer",
    });
    expect(res.body).toMatchObject({ invitePending: true, roles: ["viewer"] });
    // account mail: through the platform's sender, not the tenant's (tenantId null; docs/messaging.md)
    const invite = await latestEmailTo("invitee@example.test", 10_000);
    expect(invite).toMatchObject({ to: "invitee@example.test", tenantId: null });
    expect(tokenIn(invite!.text)).toMatch(/^[A-Za-z0-9_-]+$/);
    const again = await agency().post(`/agency/tenants/${w.tenantA.id}/users`, {
      email: "invitee@example.test",
      role: "manager",
    });
    expect(again.status).toBe(409);
  });
});

describe("locations through /agency", () => {
  it("creates a location in an owned tenant on its oldest active brand", async () => {
    const res = await agency().post(`/agency/tenants/${w.tenantA.id}/locations`, {
      name: "Harbor",
      addressLine1: "9 Dock Rd",
      city: "Salem",
      state: "MA",
      postalCode: "01970",
      phone: "+19785550100",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      tenantId: w.tenantA.id,
      brandId: w.tenantA.brandId,
      name: "Harbor",
      city: "Salem",
    });
    const [audit] = await auditFor(res.body.id, "location.created");
    expect(audit).toMatchObject({ tenantId: w.tenantA.id, actorId: w.users.agencyAdmin.id });
  });

  it("lists locations across owned tenants with their tenant, filtered by tenantId", async () => {
    await w.as("tenantBAdmin").post("/v1/locations", { name: "B side" });
    const all = await agency().get("/agency/locations?limit=200");
    expect(all.status).toBe(200);
    const harbor = all.body.data.find((l: { name: string }) => l.name === "Harbor");
    expect(harbor.tenant).toEqual({ id: w.tenantA.id, name: w.tenantA.name, slug: w.tenantA.slug });
    expect(all.body.data.some((l: { tenantId: string }) => l.tenantId === w.tenantB.id)).toBe(false);
    const filtered = await agency().get(`/agency/locations?tenantId=${w.tenantA.id}`);
    expect(filtered.body.data.every((l: { tenantId: string }) => l.tenantId === w.tenantA.id)).toBe(true);
    expect(filtered.body.total).toBeGreaterThan(0);
    expect((await agency().get(`/agency/locations?tenantId=${w.tenantB.id}`)).status).toBe(404);
    const theirs = await w.as("otherAgencyAdmin").get("/agency/locations");
    expect(theirs.body.data.map((l: { name: string }) => l.name)).toEqual(["B side"]);
  });
});
