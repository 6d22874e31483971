import { beforeAll, describe, expect, it } from "vitest";
import { countRoundTrips } from "../helpers/d1-counter";
import { createWorld, seedUser, type World } from "../helpers/seed";

/**
 * Hot authenticated reads: latency is D1 round trips, so their number is pinned here (the timing
 * itself is measured by `npm run bench`, never by tests).
 */
let w: World;
const get = (path: string, token: string, tenantId: string) =>
  countRoundTrips(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${token}`, "x-tenant-id": tenantId } }));

beforeAll(async () => {
  w = await createWorld();
  for (const email of ["ann@example.com", "bob@example.com"]) {
    expect((await w.as("manager").post("/v1/contacts", { email })).status).toBe(201);
  }
});

describe("D1 round trips per request", () => {
  it("a first request reads the principal, grants and tenant in one trip, the page in one more; a repeat only the page", async () => {
    const first = await get("/v1/contacts?limit=50", w.users.tenantUser.token, w.tenantA.id);
    expect(first.status).toBe(200);
    expect((first.body as { total: number }).total).toBe(2);
    expect(first.roundTrips).toBe(2);
    const again = await get("/v1/contacts?limit=50", w.users.tenantUser.token, w.tenantA.id);
    expect(again.body).toEqual(first.body);
    expect(again.roundTrips).toBe(1);
  });

  it("a search costs the same", async () => {
    const r = await get("/v1/contacts?search=ann", w.users.viewer.token, w.tenantA.id);
    expect((r.body as { data: { email: string }[] }).data.map((c) => c.email)).toEqual(["ann@example.com"]);
    expect(r.roundTrips).toBe(2);
  });

  it("a foreign tenant is refused after the single auth trip, and from the cache after that", async () => {
    const r = await get("/v1/contacts", w.users.manager.token, w.tenantB.id);
    expect(r.status).toBe(403);
    expect(r.roundTrips).toBe(1);
    const again = await get("/v1/contacts", w.users.manager.token, w.tenantB.id);
    expect(again.status).toBe(403);
    expect(again.roundTrips).toBe(0);
  });
});

describe("the isolate's principal cache", () => {
  it("forgets a user whose roles change or who is deactivated, so the change applies at once", async () => {
    const user = await seedUser({ grants: [{ role: "manager", scopeType: "tenant", scopeId: w.tenantA.id }], tenantId: w.tenantA.id });
    const token = user.token;
    const write = () => countRoundTrips(new Request("http://localhost/v1/contacts", {
      method: "POST", headers: { authorization: `Bearer ${token}`, "x-tenant-id": w.tenantA.id, "content-type": "application/json" }, body: JSON.stringify({ email: `w${Math.random()}@example.com` }),
    }));
    expect((await write()).status).toBe(201);
    expect((await w.as("tenantAdmin").put(`/v1/users/${user.id}/roles`, { roles: ["viewer"] })).status).toBe(200);
    expect((await write()).status).toBe(403);
    expect((await w.as("tenantAdmin").delete(`/v1/users/${user.id}`)).status).toBe(204);
    expect((await get("/v1/contacts", token, w.tenantA.id)).status).toBe(401);
  });

  it("forgets a tenant that is paused, so its users are read-only at once", async () => {
    const r = await get("/v1/contacts", w.users.tenantAdmin.token, w.tenantA.id);
    expect(r.status).toBe(200);
    const paused = await w.as("platformAdmin").patch(`/admin/tenants/${w.tenantA.id}`, { isActive: false, pausedReason: "billing" });
    expect(paused.status).toBe(200);
    const write = await w.as("tenantAdmin").post("/v1/contacts", { email: "while-paused@example.com" });
    expect(write.status).toBe(403);
    expect((await w.as("platformAdmin").patch(`/admin/tenants/${w.tenantA.id}`, { isActive: true })).status).toBe(200);
    expect((await w.as("tenantAdmin").post("/v1/contacts", { email: "resumed@example.com" })).status).toBe(201);
  });
});
