import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { analyticsReviewDaily, auditEvents, brands, locations, tenants } from "../../src/db/schema";
import { allShards, controlDb, placeTenant, shardDb, shardNumbers, tenantShard } from "../../src/db/shards";
import { client } from "../helpers/http";
import { createWorld, seedAgency, seedTenant, seedUser } from "../helpers/seed";

const LOCATION = {
  name: "Main street",
  address: "1 Main St",
  city: "Springfield",
  state: "IL",
  zip: "62701",
  country: "US",
};

describe("tenant shards", () => {
  it("runs locally with two shards, shard 0 being the control database and shard 1 a database of its own", async () => {
    expect(shardNumbers(env)).toEqual([0, 1]);
    const t = await seedTenant({ shard: 1 });
    // the directory row lives on the control database; shard 1 holds a mirror and the tenant's rows
    expect(
      await controlDb(env).select({ shard: tenants.shard }).from(tenants).where(eq(tenants.id, t.id)).get(),
    ).toEqual({ shard: 1 });
    expect(await shardDb(env, 1).select({ id: brands.id }).from(brands).where(eq(brands.tenantId, t.id))).toEqual([
      { id: t.brandId },
    ]);
    expect(await controlDb(env).select({ id: brands.id }).from(brands).where(eq(brands.tenantId, t.id))).toEqual([]);
    expect(await tenantShard(env, t.id)).toBe(1);
    expect(await tenantShard(env, "no-such-tenant")).toBeNull();
  });

  it("routes a tenant's request to its shard and never to another one", async () => {
    const w = await createWorld({ shardA: 1, shardB: 0 });
    const created = await w.as("tenantAdmin").post("/v1/locations", { ...LOCATION, brandId: w.tenantA.brandId });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    const onShard = async (n: number) =>
      (await shardDb(env, n).select({ id: locations.id }).from(locations).where(eq(locations.id, id))).length;
    expect([await onShard(0), await onShard(1)]).toEqual([0, 1]);
    const read = await w.as("tenantAdmin").get(`/v1/locations/${id}`);
    expect(read.status).toBe(200);
    expect((read.body as { name: string }).name).toBe(LOCATION.name);
    // tenant B (shard 0) cannot see it, and its own list holds only its own rows
    expect((await w.as("tenantBAdmin").get(`/v1/locations/${id}`)).status).toBe(404);
  });

  it("places new tenants on the emptiest shard, an agency's tenants together", async () => {
    const counts = async () => {
      const rows = await controlDb(env).select({ shard: tenants.shard }).from(tenants);
      return [0, 1].map((s) => rows.filter((r) => r.shard === s).length);
    };
    const [n0, n1] = await counts();
    const fresh = await seedAgency();
    expect(await placeTenant(env, fresh.id)).toBe(n1! < n0! ? 1 : 0);
    // an agency already on shard 1 stays there while shard 1 is within the slack of the emptiest
    await seedTenant({ agencyId: fresh.id, shard: 1 });
    expect(await placeTenant(env, fresh.id)).toBe(1);
  });

  it("creates a tenant through the API on the placed shard with its brand and audit event there", async () => {
    const admin = await seedUser({ grants: [{ role: "platform_admin", scopeType: "platform" }] });
    const api = client(admin.token);
    const agency = await seedAgency();
    const expected = await placeTenant(env, agency.id);
    const res = await api.post("/agency/tenants", {
      name: "Sharded Co",
      slug: `sharded-${Date.now()}`,
      plan: "starter",
      agencyId: agency.id,
    });
    expect(res.status).toBe(201);
    const body = res.body as { id: string; brands: { id: string }[] };
    expect(await tenantShard(env, body.id)).toBe(expected);
    const brandRows = await shardDb(env, expected)
      .select({ id: brands.id })
      .from(brands)
      .where(eq(brands.tenantId, body.id));
    expect(brandRows).toEqual([{ id: body.brands[0]!.id }]);
    const audit = await shardDb(env, expected)
      .select({ action: auditEvents.action })
      .from(auditEvents)
      .where(eq(auditEvents.tenantId, body.id));
    expect(audit).toEqual([{ action: "tenant.created" }]);
    // it is reachable through its shard at once
    const detail = await api.get(`/admin/tenants/${body.id}`);
    expect(detail.status).toBe(200);
    expect((detail.body as { brands: { id: string }[] }).brands.map((b) => b.id)).toEqual([body.brands[0]!.id]);
  });

  it("lists every shard for the sweeps", () => {
    expect(allShards(env).map((s) => s.shard)).toEqual([0, 1]);
  });
});

describe("read replicas (D1 Sessions API)", () => {
  it("answers every tenant request with a bookmark and accepts it back for read-your-writes", async () => {
    const w = await createWorld({ shardA: 1 });
    const api = w.as("tenantAdmin");
    const created = await api.post("/v1/locations", { ...LOCATION, brandId: w.tenantA.brandId });
    expect(created.status).toBe(201);
    const bookmark = created.headers.get("x-d1-bookmark");
    expect(bookmark).toMatch(/^[0-9a-f]+(-[0-9a-f]+)+$/i);
    const id = (created.body as { id: string }).id;
    const read = await api.get(`/v1/locations/${id}`, { "x-d1-bookmark": bookmark! });
    expect(read.status).toBe(200);
    expect((read.body as { id: string }).id).toBe(id);
    // the session never goes backwards: the next bookmark is at or after the one sent
    expect(read.headers.get("x-d1-bookmark")! >= bookmark!).toBe(true);
  });

  it("ignores a malformed bookmark instead of passing it to D1", async () => {
    const w = await createWorld();
    const res = await w.as("tenantAdmin").get("/v1/locations", { "x-d1-bookmark": "'; drop table tenants; --" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-d1-bookmark")).toMatch(/^[0-9a-f]+(-[0-9a-f]+)+$/i);
  });
});

describe("cross-shard agency analytics", () => {
  it("reads every shard an agency's tenants live on and merges per tenant and in total", async () => {
    const w = await createWorld({ shardA: 0 });
    const sibling = await seedTenant({ agencyId: w.agencyA.id, shard: 1 });
    const day = "2026-03-10";
    const row = (tenantId: string, reviews: number, ratingSum: number) => ({
      tenantId,
      day,
      locationId: "loc",
      siteType: "google",
      reviews,
      rated: reviews,
      ratingSum,
      rating1: 0,
      rating2: 0,
      rating3: 0,
      rating4: 0,
      rating5: 0,
      positive: 0,
      neutral: 0,
      negative: 1,
    });
    await shardDb(env, 0)
      .insert(analyticsReviewDaily)
      .values(row(w.tenantA.id, 2, 8));
    await shardDb(env, 1)
      .insert(analyticsReviewDaily)
      .values(row(sibling.id, 3, 15));
    const res = await w.as("agencyAdmin").get(`/agency/analytics?dateFrom=${day}&dateTo=${day}`);
    expect(res.status).toBe(200);
    expect(res.body.totals.reviews).toEqual({ count: 5, averageRating: 4.6, negative: 2 });
    const byId = Object.fromEntries(
      res.body.tenants.map((t: { tenant: { id: string }; reviews: { count: number } }) => [
        t.tenant.id,
        t.reviews.count,
      ]),
    );
    expect(byId).toEqual({ [w.tenantA.id]: 2, [sibling.id]: 3 });
    const one = await w.as("agencyAdmin").get(`/agency/analytics?dateFrom=${day}&dateTo=${day}&tenantId=${sibling.id}`);
    expect(one.body.totals.reviews.count).toBe(3);
  });
});
