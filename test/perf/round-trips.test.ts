import { beforeAll, describe, expect, it } from "vitest";
import { countRoundTrips } from "../helpers/d1-counter";
import { createWorld, type World } from "../helpers/seed";

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
  it("a session-JWT contact list reads the principal, grants and tenant in one trip, the page in one more", async () => {
    const r = await get("/v1/contacts?limit=50", w.users.manager.token, w.tenantA.id);
    expect(r.status).toBe(200);
    expect((r.body as { total: number }).total).toBe(2);
    expect(r.roundTrips).toBe(2);
  });

  it("a search costs the same two trips", async () => {
    const r = await get("/v1/contacts?search=ann", w.users.viewer.token, w.tenantA.id);
    expect((r.body as { data: { email: string }[] }).data.map((c) => c.email)).toEqual(["ann@example.com"]);
    expect(r.roundTrips).toBe(2);
  });

  it("a foreign tenant is refused after the single auth trip", async () => {
    const r = await get("/v1/contacts", w.users.manager.token, w.tenantB.id);
    expect(r.status).toBe(403);
    expect(r.roundTrips).toBe(1);
  });
});
