import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { domainEvents } from "../../src/db/schema";
import { countRoundTrips } from "../helpers/d1-counter";
import { createWorld, db, seedUser, type World } from "../helpers/seed";
import { newContact, newLocation, noQuietHours } from "../solicitations/helpers";

/**
 * Hot authenticated reads: latency is D1 round trips, so their number is pinned here (the timing
 * itself is measured by `npm run bench`, never by tests).
 */
let w: World;
const get = (path: string, token: string, tenantId: string) =>
  countRoundTrips(
    new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${token}`, "x-tenant-id": tenantId } }),
  );

beforeAll(async () => {
  w = await createWorld();
  for (const email of ["ann@example.com", "bob@example.com"]) {
    expect((await w.as("manager").post("/v1/contacts", { email })).status).toBe(201);
  }
});

describe("D1 round trips per request", () => {
  // The list answers each contact's consent (the contact.list operation, one definition for REST and MCP):
  // read for the page's ids once the page is known, so one trip more than the page and its total.
  it("a first request reads the principal, grants and tenant in one trip, the page in one more, its consent in a third; a repeat only the page and consent", async () => {
    const first = await get("/v1/contacts?limit=50", w.users.tenantUser.token, w.tenantA.id);
    expect(first.status).toBe(200);
    expect((first.body as { total: number }).total).toBe(2);
    expect(first.roundTrips).toBe(3);
    const again = await get("/v1/contacts?limit=50", w.users.tenantUser.token, w.tenantA.id);
    expect(again.body).toEqual(first.body);
    expect(again.roundTrips).toBe(2);
  });

  it("a search costs the same", async () => {
    const r = await get("/v1/contacts?search=ann", w.users.viewer.token, w.tenantA.id);
    expect((r.body as { data: { email: string }[] }).data.map((c) => c.email)).toEqual(["ann@example.com"]);
    expect(r.roundTrips).toBe(3);
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

describe("D1 round trips per write, counting the after-response event hand-off", () => {
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    countRoundTrips(
      new Request(`http://localhost${path}`, {
        method: "POST",
        body: JSON.stringify(body),
        headers: {
          authorization: `Bearer ${w.users.tenantUser.token}`,
          "x-tenant-id": w.tenantA.id,
          "content-type": "application/json",
          ...headers,
        },
      }),
    );
  const eventsOf = async (key: string, id: string) =>
    (await db().select().from(domainEvents).where(eq(domainEvents.tenantId, w.tenantA.id))).filter(
      (e) => e.data[key] === id,
    );

  // the events consumer marks them dispatched when it receives them (no round trip of the request's)
  const dispatched = (key: string, id: string) =>
    vi.waitFor(
      async () => {
        const events = await eventsOf(key, id);
        expect(events.length).toBeGreaterThan(0);
        for (const e of events) expect(e.dispatchedAt).not.toBeNull();
        return events;
      },
      { timeout: 10_000, interval: 50 },
    );

  it("a review ingest: two checks and one batch; its events reach the queue from memory, unread and unmarked", async () => {
    const loc = await newLocation(w);
    await post("/v1/reviews/ingest", {
      locationId: loc.id,
      siteType: "google",
      externalReviewId: "warm-up",
      rating: 5,
    });
    const r = await post("/v1/reviews/ingest", {
      locationId: loc.id,
      siteType: "google",
      externalReviewId: "rt-1",
      rating: 2,
      text: "Cold food",
    });
    expect(r.status).toBe(201);
    expect(r.roundTrips).toBe(3);
    const events = await dispatched("reviewId", (r.body as { id: string }).id);
    expect(events.map((e) => e.type).sort()).toEqual(["review.created", "review.negative"]);
  });

  it("a solicitation create: the idempotency claim, the policy read and one batch", async () => {
    await noQuietHours(w);
    const loc = await newLocation(w);
    const c = await newContact(w);
    const r = await post(
      "/v1/solicitations",
      { locationId: loc.id, contactId: c.id, channel: "email" },
      { "idempotency-key": crypto.randomUUID() },
    );
    expect(r.status).toBe(201);
    expect(r.roundTrips).toBe(3);
    const events = await dispatched("solicitationId", (r.body as { id: string }).id);
    expect(events.map((e) => e.type)).toContain("solicitation.created");
  });
});

describe("the isolate's principal cache", () => {
  it("forgets a user whose roles change or who is deactivated, so the change applies at once", async () => {
    const user = await seedUser({
      grants: [{ role: "manager", scopeType: "tenant", scopeId: w.tenantA.id }],
      tenantId: w.tenantA.id,
    });
    const token = user.token;
    const write = () =>
      countRoundTrips(
        new Request("http://localhost/v1/contacts", {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "x-tenant-id": w.tenantA.id,
            "content-type": "application/json",
          },
          body: JSON.stringify({ email: `w${Math.random()}@example.com` }),
        }),
      );
    expect((await write()).status).toBe(201);
    expect((await w.as("tenantAdmin").put(`/v1/users/${user.id}/roles`, { roles: ["viewer"] })).status).toBe(200);
    expect((await write()).status).toBe(403);
    expect((await w.as("tenantAdmin").delete(`/v1/users/${user.id}`)).status).toBe(204);
    expect((await get("/v1/contacts", token, w.tenantA.id)).status).toBe(401);
  });

  it("forgets a tenant that is paused, so its users are read-only at once", async () => {
    const r = await get("/v1/contacts", w.users.tenantAdmin.token, w.tenantA.id);
    expect(r.status).toBe(200);
    const paused = await w
      .as("platformAdmin")
      .patch(`/admin/tenants/${w.tenantA.id}`, { isActive: false, pausedReason: "billing" });
    expect(paused.status).toBe(200);
    const write = await w.as("tenantAdmin").post("/v1/contacts", { email: "while-paused@example.com" });
    expect(write.status).toBe(403);
    expect((await w.as("platformAdmin").patch(`/admin/tenants/${w.tenantA.id}`, { isActive: true })).status).toBe(200);
    expect((await w.as("tenantAdmin").post("/v1/contacts", { email: "resumed@example.com" })).status).toBe(201);
  });
});
