import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { contactCounts, contacts, tenants } from "../../src/db/schema";
import { controlDb, shardD1, tenantShard } from "../../src/db/shards";
import { newId } from "../../src/lib/ids";
import { forgetTenantRef } from "../../src/modules/identity/principal-cache";
import { client, request } from "../helpers/http";
import { pollUntil } from "../helpers/poll";
import { createWorld, shardOf } from "../helpers/seed";
import { rowsOn, seedContacts } from "./tenant-move-helpers";

const CONTACTS = 2_000;

/** The move once it has finished (succeeded or failed), read through the API. */
const finalMove = (admin: ReturnType<typeof client>, id: string) =>
  pollUntil(
    async () => (await admin.get(`/admin/tenant-moves/${id}`)).body,
    (m) => m.state === "succeeded" || m.state === "failed",
    45_000,
    200,
  );

describe("moving a tenant between shards", () => {
  it("copies every row, verifies each table, flips the directory, deletes the source, and the API reads the same data", async () => {
    const w = await createWorld({ shardA: 0, shardB: 1 });
    const api = w.as("tenantAdmin");
    const loc = await api.post("/v1/locations", {
      name: "Moving",
      address: "1 Main St",
      city: "X",
      state: "IL",
      zip: "62701",
      country: "US",
      brandId: w.tenantA.brandId,
    });
    expect(loc.status).toBe(201);
    await seedContacts(w.tenantA, CONTACTS);
    const before = await rowsOn(0, w.tenantA.id);
    const listBefore = await api.get("/v1/contacts?limit=5");
    expect(listBefore.body.total).toBe(CONTACTS);
    const bRowsBefore = await rowsOn(1, w.tenantB.id);

    const admin = client(w.users.platformAdmin.token);
    const started = await admin.post(`/admin/tenants/${w.tenantA.id}/move`, { shard: 1 });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({
      tenantId: w.tenantA.id,
      from: 0,
      to: 1,
      state: "fencing",
      rows: 0,
      error: null,
      finishedAt: null,
    });
    // fenced from the answer on: writes wait, reads go on
    forgetTenantRef(w.tenantA.id);
    const fenced = await request("POST", "/v1/contacts", {
      token: w.users.tenantAdmin.token,
      tenantId: w.tenantA.id,
      body: { email: `fenced-${newId()}@example.test` },
      unchecked: true,
    });
    expect([fenced.status, fenced.body.code]).toEqual([503, "TENANT_MOVING"]);
    expect((await api.get("/v1/contacts?limit=1")).body.total).toBe(CONTACTS);

    const report = await finalMove(admin, started.body.id);
    // the request's audit row (on the source, before the copy) moved with the rest; the outcome's lands on the target
    const moved = { ...before, audit_events: (before.audit_events ?? 0) + 1 };

    expect(report).toMatchObject({
      id: started.body.id,
      from: 0,
      to: 1,
      state: "succeeded",
      sourceDeleted: true,
      sourceChanged: [],
      error: null,
    });
    type T = { table: string; rows: number; copied: number; checksum: string };
    expect(Object.fromEntries(report.tables.filter((t: T) => t.rows).map((t: T) => [t.table, t.rows]))).toEqual(moved);
    expect(Object.fromEntries(report.tables.filter((t: T) => t.copied).map((t: T) => [t.table, t.copied]))).toEqual(
      moved,
    );
    expect(report.tables.every((t: T) => /^[0-9a-f]{64}$|^$/.test(t.checksum))).toBe(true);
    expect(report.rows).toBe(Object.values(moved).reduce((a, b) => a + b, 0));
    expect(
      (await admin.get(`/admin/tenants/${w.tenantA.id}/moves`)).body.data.map((m: { id: string; state: string }) => [
        m.id,
        m.state,
      ]),
    ).toEqual([[started.body.id, "succeeded"]]);
    expect(await rowsOn(1, w.tenantA.id)).toEqual({ ...moved, audit_events: moved.audit_events + 1 });
    const outcome = await shardD1(env, 1)
      .prepare(
        "select action, next_state from audit_events where tenant_id = ? and action like 'tenant.move%' order by occurred_at",
      )
      .bind(w.tenantA.id)
      .all<{ action: string; next_state: string }>();
    expect(outcome.results.map((r) => r.action)).toEqual(["tenant.move_requested", "tenant.moved"]);
    expect(JSON.parse(outcome.results[1]!.next_state)).toEqual({ shard: 1, rows: report.rows, sourceDeleted: true });
    expect(await rowsOn(0, w.tenantA.id)).toEqual({});
    // tenant B, already on the target shard, is untouched
    expect(await rowsOn(1, w.tenantB.id)).toEqual(bRowsBefore);
    expect(
      await controlDb(env)
        .select({ shard: tenants.shard, movingSince: tenants.movingSince })
        .from(tenants)
        .where(eq(tenants.id, w.tenantA.id))
        .get(),
    ).toEqual({ shard: 1, movingSince: null });
    expect(await tenantShard(env, w.tenantA.id)).toBe(1);
    // the trigger-kept count was copied, not double counted
    expect(
      await shardOf({ shard: 1 })
        .select({ total: contactCounts.total })
        .from(contactCounts)
        .where(eq(contactCounts.tenantId, w.tenantA.id))
        .get(),
    ).toEqual({ total: CONTACTS });

    forgetTenantRef(w.tenantA.id);
    const listAfter = await api.get("/v1/contacts?limit=5");
    expect(listAfter.status).toBe(200);
    expect(listAfter.body.total).toBe(CONTACTS);
    expect(listAfter.body.data.map((c: { id: string }) => c.id)).toEqual(
      listBefore.body.data.map((c: { id: string }) => c.id),
    );
    expect((await api.get(`/v1/locations/${loc.body.id}`)).body.name).toBe("Moving");
    // writes after the move land on the new shard
    const created = await api.post("/v1/contacts", { email: `after-${newId()}@example.test` });
    expect(created.status).toBeLessThan(300);
    expect(
      await shardOf({ shard: 1 })
        .select({ id: contacts.id })
        .from(contacts)
        .where(eq(contacts.id, created.body.id))
        .get(),
    ).toEqual({ id: created.body.id });
  }, 90_000);

  it("fences writes with 503 TENANT_MOVING and Retry-After while reads go on", async () => {
    const w = await createWorld();
    await controlDb(env)
      .update(tenants)
      .set({ movingSince: new Date().toISOString() })
      .where(eq(tenants.id, w.tenantA.id));
    forgetTenantRef(w.tenantA.id);
    const api = w.as("tenantAdmin");
    // checked against the document: every tenant write declares the 503 (test/db/tenant-moving-docs.test.ts)
    const write = await request("POST", "/v1/contacts", {
      token: w.users.tenantAdmin.token,
      tenantId: w.tenantA.id,
      body: { email: `fenced-${newId()}@example.test` },
    });
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
    expect((await admin.get(`/admin/tenant-moves/move_${newId()}`)).status).toBe(404);
    expect((await admin.get(`/admin/tenants/${newId()}/moves`)).status).toBe(404);
    expect((await admin.get(`/admin/tenants/${w.tenantA.id}/moves`)).body).toEqual({ data: [] });
  });

  it("a second move of a tenant already moving is 409, even when both requests race; GET shows the move to platform admins only", async () => {
    const w = await createWorld();
    const admin = client(w.users.platformAdmin.token);
    const both = await Promise.all([
      admin.post(`/admin/tenants/${w.tenantA.id}/move`, { shard: 1 }),
      admin.post(`/admin/tenants/${w.tenantA.id}/move`, { shard: 1 }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([202, 409]);
    const started = both.find((r) => r.status === 202)!;
    expect(both.find((r) => r.status === 409)!.body.code).toBe("CONFLICT");
    const again = await admin.post(`/admin/tenants/${w.tenantA.id}/move`, { shard: 1 });
    expect([again.status, again.body.code]).toEqual([409, "CONFLICT"]);
    expect((await client(w.users.agencyAdmin.token).get(`/admin/tenant-moves/${started.body.id}`)).status).toBe(403);
    expect((await client(w.users.tenantAdmin.token).get(`/admin/tenant-moves/${started.body.id}`)).status).toBe(403);
    const done = await finalMove(admin, started.body.id);
    expect(done).toMatchObject({ state: "succeeded", from: 0, to: 1, sourceDeleted: true });
    expect(await tenantShard(env, w.tenantA.id)).toBe(1);
    expect(
      (await admin.get(`/admin/tenants/${w.tenantA.id}/moves`)).body.data.map((m: { id: string }) => m.id),
    ).toEqual([started.body.id]);
    // and back: a finished move does not block the next one
    const back = await admin.post(`/admin/tenants/${w.tenantA.id}/move`, { shard: 0 });
    expect(back.status).toBe(202);
    expect(await finalMove(admin, back.body.id)).toMatchObject({ state: "succeeded", from: 1, to: 0 });
    expect(
      (await admin.get(`/admin/tenants/${w.tenantA.id}/moves`)).body.data.map((m: { id: string }) => m.id),
    ).toEqual([back.body.id, started.body.id]);
  }, 90_000);
});
