import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, locations } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { createWorld, db, type World } from "../helpers/seed";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

describe("locations", () => {
  let id = "";

  it("creates a location with the spec's defaults and the tenant's default brand embedded", async () => {
    const res = await w.as("manager").post("/v1/locations", {
      name: "Downtown Clinic",
      addressLine1: "1 Main St",
      city: "Springfield",
      state: "IL",
      postalCode: "62701",
      googlePlaceId: "ChIJ-downtown",
      latitude: 39.7817,
      longitude: -89.6501,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      tenantId: w.tenantA.id,
      brandId: w.tenantA.brandId,
      brand: { id: w.tenantA.brandId, name: `${w.tenantA.name} brand` },
      name: "Downtown Clinic",
      country: "US",
      timezone: "UTC",
      locale: "en-US",
      googlePlaceId: "ChIJ-downtown",
      latitude: 39.7817,
      longitude: -89.6501,
      isActive: true,
      regionId: null,
      yelpBusinessId: null,
    });
    expect(res.body.createdAt).toBe(res.body.updatedAt);
    id = res.body.id;
  });

  it("writes the audit event with the change", async () => {
    const rows = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceType, "location"), eq(auditEvents.resourceId, id)));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      tenantId: w.tenantA.id,
      action: "location.created",
      actorId: w.users.manager.id,
      actorType: "user",
    });
    expect((rows[0]!.nextState as { name: string }).name).toBe("Downtown Clinic");
  });

  it("reads it back by id", async () => {
    const res = await w.as("viewer").get(`/v1/locations/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, name: "Downtown Clinic", city: "Springfield" });
  });

  it("patches fields, normalises the country and records previous and next state", async () => {
    const res = await w
      .as("tenantAdmin")
      .patch(`/v1/locations/${id}`, { timezone: "America/Chicago", country: "us", isActive: false, phone: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      timezone: "America/Chicago",
      country: "US",
      isActive: false,
      phone: null,
      name: "Downtown Clinic",
    });
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, id), eq(auditEvents.action, "location.updated")))
      .get();
    expect((audit!.previousState as { timezone: string }).timezone).toBe("UTC");
    expect((audit!.nextState as { timezone: string }).timezone).toBe("America/Chicago");
  });

  it("404s an unknown id", async () => {
    const res = await w.as("viewer").get("/v1/locations/does-not-exist");
    expect(res.status).toBe(404);
  });

  it("refuses a duplicate externalId with 409", async () => {
    expect((await w.as("manager").post("/v1/locations", { name: "A", externalId: "store-7" })).status).toBe(201);
    const dup = await w.as("manager").post("/v1/locations", { name: "B", externalId: "store-7" });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("CONFLICT");
  });
});

describe("keyset pagination", () => {
  it("visits each of 120 locations exactly once at limit 50, newest first", async () => {
    const tenant = w.tenantB.id;
    const base = Date.parse("2026-03-01T00:00:00.000Z");
    const rows = Array.from({ length: 120 }, (_, i) => {
      // pairs share a timestamp so the id tie-breaker is exercised
      const at = new Date(base + Math.floor(i / 2) * 1000).toISOString();
      return { id: newId(), tenantId: tenant, brandId: w.tenantB.brandId, name: `L${i}`, createdAt: at, updatedAt: at };
    });
    for (let i = 0; i < rows.length; i += 5)
      await db()
        .insert(locations)
        .values(rows.slice(i, i + 5));

    const seen: string[] = [];
    let cursor: string | null = null;
    const pages: number[] = [];
    do {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
      const res = await w.as("tenantBAdmin").get(`/v1/locations?limit=50${q}`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(120);
      expect(res.body.pageInfo.hasPreviousPage).toBe(Boolean(cursor));
      pages.push(res.body.data.length);
      seen.push(...res.body.data.map((l: { id: string }) => l.id));
      cursor = res.body.pageInfo.hasNextPage ? res.body.pageInfo.endCursor : null;
    } while (cursor);

    expect(pages).toEqual([50, 50, 20]);
    expect(new Set(seen).size).toBe(120);
    const expectedOrder = [...rows].sort((a, b) =>
      a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
    );
    expect(seen).toEqual(expectedOrder.map((r) => r.id));
  });

  it("filters by brandId and isActive", async () => {
    const brand = await w.as("tenantAdmin").post("/v1/brands", { name: "Second Brand" });
    await w.as("manager").post("/v1/locations", { name: "Second brand store", brandId: brand.body.id });
    const byBrand = await w.as("viewer").get(`/v1/locations?brandId=${brand.body.id}`);
    expect(byBrand.body.data.map((l: { name: string }) => l.name)).toEqual(["Second brand store"]);
    expect(byBrand.body.data[0].brand).toEqual({ id: brand.body.id, name: "Second Brand" });
    const inactive = await w.as("viewer").get("/v1/locations?isActive=false");
    expect(inactive.body.data.map((l: { name: string }) => l.name)).toEqual(["Downtown Clinic"]);
  });
});
