import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { apiKeys, auditEvents } from "../../src/db/schema";
import { sha256Hex } from "../../src/lib/crypto";
import { newId } from "../../src/lib/ids";
import { resolveTenantAccess } from "../../src/modules/identity/access";
import { scopesForRequest } from "../../src/modules/identity/scopes";
import { request } from "../helpers/http";
import { createWorld, db, type World } from "../helpers/seed";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const withKey = (key: string, method: string, path: string, tenantId?: string, body?: unknown) =>
  request(method, path, { token: key, tenantId, body });

describe("API keys", () => {
  let created: { id: string; key: string; prefix: string };

  it("mints a key shown once, stores only its SHA-256, defaults to every read scope", async () => {
    const res = await w.as("tenantAdmin").post("/v1/api-keys", { name: "Zapier" });
    expect(res.status).toBe(201);
    created = res.body;
    expect(res.body.key).toMatch(/^rk_live_[A-Za-z0-9_-]{43}$/);
    expect(res.body).toMatchObject({
      name: "Zapier",
      prefix: res.body.key.slice(0, 16),
      expiresAt: null,
      lastUsedAt: null,
    });
    expect(res.body.scopes).toContain("read:locations");
    expect(res.body.scopes.every((s: string) => s.startsWith("read:"))).toBe(true);
    const row = await db().select().from(apiKeys).where(eq(apiKeys.id, res.body.id)).get();
    expect(row!.keyHash).toBe(await sha256Hex(res.body.key));
    expect(JSON.stringify(row)).not.toContain(res.body.key);
    const [audit] = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, res.body.id), eq(auditEvents.action, "api_key.created")));
    expect(JSON.stringify(audit)).not.toContain(row!.keyHash);
    const list = await w.as("tenantAdmin").get("/v1/api-keys");
    expect(list.body.data).toEqual([expect.not.objectContaining({ key: expect.anything() })]);
    expect(list.body.data[0]).toMatchObject({ id: res.body.id, prefix: res.body.prefix });
  });

  it("authenticates REST reads of its own tenant; another tenant is 403, no tenant header 400", async () => {
    const ok = await withKey(created.key, "GET", "/v1/locations", w.tenantA.id);
    expect(ok.status).toBe(200);
    const foreign = await withKey(created.key, "GET", "/v1/locations", w.tenantB.id);
    expect(foreign.status).toBe(403);
    expect(foreign.body.code).toBe("FORBIDDEN");
    expect((await withKey(created.key, "GET", "/v1/locations")).body.code).toBe("TENANT_REQUIRED");
  });

  it("checks scopes: reads need their read scope, writes a write scope, and some routes are closed to keys", async () => {
    const write = await withKey(created.key, "POST", "/v1/locations", w.tenantA.id, { name: "By key" });
    expect(write.status).toBe(403);
    expect((await withKey(created.key, "GET", "/v1/users", w.tenantA.id)).body.error).toBe(
      "API keys cannot call this route",
    );
    expect((await withKey(created.key, "GET", "/v1/api-keys", w.tenantA.id)).status).toBe(403);
    const narrow = await w.as("tenantAdmin").post("/v1/api-keys", { name: "contacts only", scopes: ["read:contacts"] });
    const denied = await withKey(narrow.body.key, "GET", "/v1/locations", w.tenantA.id);
    expect(denied.status).toBe(403);
    expect(denied.body.details).toEqual({ requiredScopes: ["read:locations"] });
    expect((await withKey(created.key, "GET", "/me")).status).toBe(401);
    expect((await withKey(created.key, "GET", "/admin/tenants")).status).toBe(403);
    expect((await w.as("tenantAdmin").post("/v1/api-keys", { name: "bad", scopes: ["write:everything"] })).status).toBe(
      400,
    );
  });

  it("maintains lastUsedAt at most once a minute", async () => {
    const first = (await db().select().from(apiKeys).where(eq(apiKeys.id, created.id)).get())!.lastUsedAt;
    expect(first).not.toBeNull();
    await withKey(created.key, "GET", "/v1/locations", w.tenantA.id);
    const second = (await db().select().from(apiKeys).where(eq(apiKeys.id, created.id)).get())!.lastUsedAt;
    expect(second).toBe(first);
    const listed = await w.as("tenantAdmin").get("/v1/api-keys");
    expect(listed.body.data.find((k: { id: string }) => k.id === created.id).lastUsedAt).toBe(first);
  });

  it("rejects an expired key with 401", async () => {
    const key = `rk_live_${"x".repeat(43)}`;
    await db()
      .insert(apiKeys)
      .values({
        id: newId(),
        tenantId: w.tenantA.id,
        name: "old",
        prefix: key.slice(0, 16),
        keyHash: await sha256Hex(key),
        scopes: ["read:locations"],
        createdByUserId: null,
        createdAt: new Date(Date.now() - 86_400_000).toISOString(),
        expiresAt: new Date(Date.now() - 1000).toISOString(),
        lastUsedAt: null,
        revokedAt: null,
      });
    expect((await withKey(key, "GET", "/v1/locations", w.tenantA.id)).status).toBe(401);
    expect((await withKey("rk_live_unknown", "GET", "/v1/locations", w.tenantA.id)).status).toBe(401);
    expect(
      (await w.as("tenantAdmin").post("/v1/api-keys", { name: "past", expiresAt: "2000-01-01T00:00:00Z" })).status,
    ).toBe(400);
  });

  it("revokes: the key is refused with 401 at once, disappears from the list, and another tenant cannot revoke it", async () => {
    expect((await w.as("tenantBAdmin").delete(`/v1/api-keys/${created.id}`)).status).toBe(404);
    const res = await w.as("tenantAdmin").delete(`/v1/api-keys/${created.id}`);
    expect(res.status).toBe(204);
    const after = await withKey(created.key, "GET", "/v1/locations", w.tenantA.id);
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain("Bearer");
    const list = await w.as("tenantAdmin").get("/v1/api-keys");
    expect(list.body.data.map((k: { id: string }) => k.id)).not.toContain(created.id);
    expect((await w.as("tenantAdmin").delete(`/v1/api-keys/${created.id}`)).status).toBe(404);
    const [audit] = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, created.id), eq(auditEvents.action, "api_key.revoked")));
    expect(audit).toMatchObject({ tenantId: w.tenantA.id, actorId: w.users.tenantAdmin.id });
  });
});

describe("scope and role rules for keys", () => {
  const key = (scopes: string[]) => ({ kind: "api_key" as const, keyId: "k", tenantId: "t1", scopes });
  const tenant = (isActive: boolean) => ({ id: "t1", agencyId: "a", isActive });

  it("maps REST routes to scopes", () => {
    expect(scopesForRequest("GET", "/v1/contacts")).toEqual(["read:contacts"]);
    expect(scopesForRequest("POST", "/v1/contacts/c1/suppress")).toEqual(["write:contacts"]);
    expect(scopesForRequest("GET", "/v1/inbox")).toEqual(["read:reviews", "read:feedback"]);
    expect(scopesForRequest("GET", "/v1/responses/approval-queue")).toEqual(["read:approvals", "read:reviews"]);
    expect(scopesForRequest("POST", "/v1/locations")).toEqual([]);
    expect(scopesForRequest("GET", "/v1/users")).toEqual([]);
    expect(scopesForRequest("GET", "/v1/locationsX")).toEqual([]);
  });

  it("a key acts as viewer, or manager with a write scope unless the tenant is paused; never in another tenant", () => {
    expect(resolveTenantAccess(key(["read:locations"]), tenant(true))?.role).toBe("viewer");
    expect(resolveTenantAccess(key(["write:contacts"]), tenant(true))?.role).toBe("manager");
    expect(resolveTenantAccess(key(["write:contacts"]), tenant(false))?.role).toBe("viewer");
    expect(resolveTenantAccess(key(["write:contacts"]), { ...tenant(true), id: "t2" })).toBeNull();
  });
});
