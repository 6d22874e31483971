import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { contactCounts, contacts, tenants } from "../../src/db/schema";
import { controlDb, shardD1, tenantShard } from "../../src/db/shards";
import { moveTenant, tenantTables } from "../../src/db/tenant-move";
import { newId } from "../../src/lib/ids";
import { forgetTenantRef } from "../../src/modules/identity/principal-cache";
import { createWorld, shardOf } from "../helpers/seed";
import { client, request } from "../helpers/http";

const CONTACTS = 2_000;

/** Rows of the tenant per tenant-owned table on one shard. */
async function rowsOn(shard: number, tenantId: string) {
  const d1 = shardD1(env, shard);
  const out: Record<string, number> = {};
  for (const t of await tenantTables(d1)) {
    const r = await d1.prepare(`select count(*) as n from "${t.name}" where tenant_id = ?`).bind(tenantId).first<{ n: number }>();
    if (r!.n) out[t.name] = r!.n;
  }
  return out;
}

async function seedContacts(tenant: { id: string; shard: number }, n: number) {
  const now = new Date().toISOString();
  const rows = Array.from({ length: n }, (_, i) => ({ id: newId(), tenantId: tenant.id, email: `c${i}-${newId()}@example.test`, firstName: `C${i}`, createdAt: now, updatedAt: now }));
  const d1 = shardD1(env, tenant.shard);
  for (let i = 0; i < rows.length; i += 500) {
    const page = rows.slice(i, i + 500);
    await d1
      .prepare("insert into contacts (id, tenant_id, email, first_name, created_at, updated_at) select json_extract(value,'$.id'), json_extract(value,'$.tenantId'), json_extract(value,'$.email'), json_extract(value,'$.firstName'), json_extract(value,'$.createdAt'), json_extract(value,'$.updatedAt') from json_each(?)")
      .bind(JSON.stringify(page))
      .run();
  }
}

describe("moving a tenant between shards", () => {
  it("copies every row, verifies each table, flips the directory, deletes the source, and the API reads the same data", async () => {
    const w = await createWorld({ shardA: 0, shardB: 1 });
    const api = w.as("tenantAdmin");
    const loc = await api.post("/v1/locations", { name: "Moving", address: "1 Main St", city: "X", state: "IL", zip: "62701", country: "US", brandId: w.tenantA.brandId });
    expect(loc.status).toBe(201);
    await seedContacts(w.tenantA, CONTACTS);
    const before = await rowsOn(0, w.tenantA.id);
    const listBefore = await api.get("/v1/contacts?limit=5");
    expect(listBefore.body.total).toBe(CONTACTS);
    const bRowsBefore = await rowsOn(1, w.tenantB.id);

    const report = await moveTenant(env, w.tenantA.id, 1);

    expect(report).toMatchObject({ from: 0, to: 1, sourceDeleted: true, sourceChanged: [] });
    expect(Object.fromEntries(report.tables.filter((t) => t.rows).map((t) => [t.table, t.rows]))).toEqual(before);
    expect(report.rows).toBe(Object.values(before).reduce((a, b) => a + b, 0));
    expect(await rowsOn(1, w.tenantA.id)).toEqual(before);
    expect(await rowsOn(0, w.tenantA.id)).toEqual({});
    // tenant B, already on the target shard, is untouched
    expect(await rowsOn(1, w.tenantB.id)).toEqual(bRowsBefore);
    expect(await controlDb(env).select({ shard: tenants.shard, movingSince: tenants.movingSince }).from(tenants).where(eq(tenants.id, w.tenantA.id)).get()).toEqual({ shard: 1, movingSince: null });
    expect(await tenantShard(env, w.tenantA.id)).toBe(1);
    // the trigger-kept count was copied, not double counted
    expect(await shardOf({ shard: 1 }).select({ total: contactCounts.total }).from(contactCounts).where(eq(contactCounts.tenantId, w.tenantA.id)).get()).toEqual({ total: CONTACTS });

    forgetTenantRef(w.tenantA.id);
    const listAfter = await api.get("/v1/contacts?limit=5");
    expect(listAfter.status).toBe(200);
    expect(listAfter.body.total).toBe(CONTACTS);
    expect(listAfter.body.data.map((c: { id: string }) => c.id)).toEqual(listBefore.body.data.map((c: { id: string }) => c.id));
    expect((await api.get(`/v1/locations/${loc.body.id}`)).body.name).toBe("Moving");
    // writes after the move land on the new shard
    const created = await api.post("/v1/contacts", { email: `after-${newId()}@example.test` });
    expect(created.status).toBeLessThan(300);
    expect(await shardOf({ shard: 1 }).select({ id: contacts.id }).from(contacts).where(eq(contacts.id, created.body.id)).get()).toEqual({ id: created.body.id });
  }, 60_000);

  it("fences writes with 503 TENANT_MOVING and Retry-After while reads go on", async () => {
    const w = await createWorld();
    await controlDb(env).update(tenants).set({ movingSince: new Date().toISOString() }).where(eq(tenants.id, w.tenantA.id));
    forgetTenantRef(w.tenantA.id);
    const api = w.as("tenantAdmin");
    // checked against the document: every tenant write declares the 503 (test/scale/tenant-moving-docs.test.ts)
    const write = await request("POST", "/v1/contacts", { token: w.users.tenantAdmin.token, tenantId: w.tenantA.id, body: { email: `fenced-${newId()}@example.test` } });
    expect(write.status).toBe(503);
    expect(write.body).toMatchObject({ code: "TENANT_MOVING", details: { retryAfterSeconds: 5 } });
    expect(write.headers.get("retry-after")).toBe("5");
    expect((await api.get("/v1/contacts")).status).toBe(200);
    await controlDb(env).update(tenants).set({ movingSince: null }).where(eq(tenants.id, w.tenantA.id));
    forgetTenantRef(w.tenantA.id);
  });

  it("POST /admin/tenants/{id}/move is platform_admin only and refuses an unknown tenant, shard or a no-op", async () => {
    const w = await createWorld();
    const admin = client(w.users.platformAdmin.token);
    expect((await admin.post(`/admin/tenants/${newId()}/move`, { shard: 1 })).status).toBe(404);
    const same = await admin.post(`/admin/tenants/${w.tenantA.id}/move`, { shard: 0 });
    expect([same.status, same.body.code]).toEqual([409, "CONFLICT"]);
    const noShard = await admin.post(`/admin/tenants/${w.tenantA.id}/move`, { shard: 7 });
    expect([noShard.status, noShard.body.code]).toEqual([400, "VALIDATION_ERROR"]);
    const agency = client(w.users.agencyAdmin.token);
    expect((await agency.post(`/admin/tenants/${w.tenantA.id}/move`, { shard: 1 })).status).toBe(403);
    expect(await tenantShard(env, w.tenantA.id)).toBe(0);
  });
});
