import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { tenants } from "../../src/db/schema";
import { client } from "../helpers/http";
import { ACTOR_NAMES, type ActorName, createWorld, db, seedTenant, seedUser, type World } from "../helpers/seed";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

// The spec's access order: platform scope, then a direct tenant role, then agency scope.
const expected: Record<ActorName, { read: number; write: number; via: string | null }> = {
  platformAdmin: { read: 200, write: 201, via: "platform" },
  tenantAdmin: { read: 200, write: 201, via: "tenant" },
  manager: { read: 200, write: 201, via: "tenant" },
  tenantUser: { read: 200, write: 403, via: "tenant" },
  viewer: { read: 200, write: 403, via: "tenant" },
  agencyAdmin: { read: 200, write: 201, via: "agency" },
  otherAgencyAdmin: { read: 403, write: 403, via: null },
};

describe("access matrix on tenant A (read: GET /v1/locations, write: POST /v1/locations needs manager)", () => {
  for (const actor of ACTOR_NAMES) {
    const e = expected[actor];
    it(`${actor}: read ${e.read}, write ${e.write}`, async () => {
      const read = await w.as(actor).get("/v1/locations");
      expect(read.status).toBe(e.read);
      const write = await w.as(actor).post("/v1/locations", { name: `${actor} location` });
      expect(write.status).toBe(e.write);
      if (e.write === 201) expect(write.body).toMatchObject({ name: `${actor} location`, tenantId: w.tenantA.id });
      else expect(write.body.code).toBe("FORBIDDEN");
      const me = await w.as(actor).get("/me");
      expect(me.body.tenantAccess?.via ?? null).toBe(e.via);
    });
  }

  it("lists exactly the locations the writers created", async () => {
    const res = await w.as("viewer").get("/v1/locations?limit=200");
    const names = res.body.data.map((l: { name: string }) => l.name).sort();
    expect(names).toEqual([
      "agencyAdmin location",
      "manager location",
      "platformAdmin location",
      "tenantAdmin location",
    ]);
    expect(res.body.total).toBe(4);
  });

  it("gives the same 403 for a tenant that does not exist", async () => {
    const res = await w.as("tenantAdmin", "tenant-that-does-not-exist").get("/v1/locations");
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "Tenant not accessible", code: "FORBIDDEN" });
  });

  it("does not let a tenant admin of A reach tenant B", async () => {
    const res = await w.as("tenantAdmin", w.tenantB.id).get("/v1/locations");
    expect(res.status).toBe(403);
  });
});

describe("tenant isolation", () => {
  let bLocationId = "";
  let bBrandId = "";
  beforeAll(async () => {
    const created = await w.as("tenantBAdmin").post("/v1/locations", { name: "B only" });
    expect(created.status).toBe(201);
    bLocationId = created.body.id;
    bBrandId = created.body.brandId;
  });

  for (const actor of ["tenantAdmin", "platformAdmin", "agencyAdmin", "viewer"] as const) {
    it(`${actor} acting on tenant A gets 404 for tenant B's location`, async () => {
      const get = await w.as(actor).get(`/v1/locations/${bLocationId}`);
      expect(get.status).toBe(404);
      expect(get.body).toEqual({ error: "Location not found", code: "NOT_FOUND" });
      if (actor !== "viewer") {
        const patch = await w.as(actor).patch(`/v1/locations/${bLocationId}`, { name: "hijacked" });
        expect(patch.status).toBe(404);
      }
    });
  }

  it("leaves tenant B's location untouched", async () => {
    const res = await w.as("tenantBAdmin").get(`/v1/locations/${bLocationId}`);
    expect(res.body.name).toBe("B only");
  });

  it("refuses tenant B's brand as a reference from tenant A", async () => {
    const res = await w.as("tenantAdmin").post("/v1/locations", { name: "Sneaky", brandId: bBrandId });
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([{ path: "brandId", message: "Unknown brand" }]);
  });
});

describe("paused tenant", () => {
  it("leaves its own users read-only while agency scope can still write", async () => {
    const paused = await seedTenant({ agencyId: w.agencyA.id, isActive: false });
    await db()
      .update(tenants)
      .set({ pausedAt: new Date().toISOString(), pausedReason: "billing" })
      .where(eq(tenants.id, paused.id));
    const admin = await seedUser({
      grants: [{ role: "tenant_admin", scopeType: "tenant", scopeId: paused.id }],
      tenantId: paused.id,
    });
    const own = client(admin.token, paused.id);
    expect((await own.get("/v1/locations")).status).toBe(200);
    const blocked = await own.post("/v1/locations", { name: "while paused" });
    expect(blocked.status).toBe(403);
    expect((await own.get("/me")).body.tenantAccess).toEqual({ tenantId: paused.id, via: "tenant", role: "viewer" });
    const agency = await w.as("agencyAdmin", paused.id).post("/v1/locations", { name: "by agency" });
    expect(agency.status).toBe(201);
  });

  it("rejects a deactivated user's still-valid token", async () => {
    const gone = await seedUser({
      grants: [{ role: "tenant_admin", scopeType: "tenant", scopeId: w.tenantA.id }],
      isActive: false,
    });
    const res = await client(gone.token, w.tenantA.id).get("/v1/locations");
    expect(res.status).toBe(401);
  });
});
