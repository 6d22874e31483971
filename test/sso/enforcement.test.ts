import { beforeAll, describe, expect, it } from "vitest";
import { samlAssertions, samlRequests } from "../../src/db/schema";
import { purgeExpiredSamlRows } from "../../src/modules/sso/background";
import { request } from "../helpers/http";
import { control, createWorld, db, seedUser, TEST_PASSWORD, type World } from "../helpers/seed";
import { enableSso } from "./setup";

let w: World;
let tenantAdminPlatform: Awaited<ReturnType<typeof seedUser>>;

beforeAll(async () => {
  w = await createWorld();
  // a platform admin whose home tenant is A
  tenantAdminPlatform = await seedUser({
    grants: [
      { role: "platform_admin", scopeType: "platform" },
      { role: "tenant_admin", scopeType: "tenant", scopeId: w.tenantA.id },
    ],
    tenantId: w.tenantA.id,
  });
});

const passwordLogin = (email: string) => request("POST", "/auth/login", { body: { email, password: TEST_PASSWORD } });

describe("enforceSso", () => {
  it("does not block password login until SSO is both enabled and enforced", async () => {
    await enableSso(w, { enforceSso: false });
    expect((await passwordLogin(w.users.manager.email)).status).toBe(200);
    await w.as("tenantAdmin").put("/v1/settings/sso", { enabled: false, enforceSso: true });
    expect((await passwordLogin(w.users.manager.email)).status).toBe(200);
  });

  it("refuses password login to the tenant's users, except platform admins and other tenants' users", async () => {
    await enableSso(w, { enforceSso: true });
    const blocked = await passwordLogin(w.users.manager.email);
    expect(blocked.status).toBe(401);
    expect(blocked.body).toMatchObject({ code: "UNAUTHENTICATED", details: { reason: "sso_required" } });
    expect((await passwordLogin(tenantAdminPlatform.email)).status).toBe(200);
    expect((await passwordLogin(w.users.tenantBAdmin.email)).status).toBe(200);
  });

  it("still answers a wrong password with the plain invalid-credentials 401 (no hint that SSO is on)", async () => {
    const res = await request("POST", "/auth/login", {
      body: { email: w.users.manager.email, password: "wrong password!" },
    });
    expect(res.status).toBe(401);
    expect(res.body.details).toBeUndefined();
  });
});

describe("daily sweep", () => {
  it("purges expired request ids and replay-list entries, keeps live ones", async () => {
    const now = new Date();
    const past = new Date(now.getTime() - 60_000).toISOString();
    const future = new Date(now.getTime() + 60_000).toISOString();
    const t = w.tenantA.id;
    await db()
      .insert(samlRequests)
      .values([
        { id: "_old", tenantId: t, createdAt: past, expiresAt: past },
        { id: "_live", tenantId: t, createdAt: past, expiresAt: future },
      ]);
    await db()
      .insert(samlAssertions)
      .values([
        { tenantId: t, assertionId: "_old", createdAt: past, expiresAt: past },
        { tenantId: t, assertionId: "_live", createdAt: past, expiresAt: future },
      ]);
    await purgeExpiredSamlRows(control(), now);
    expect((await db().select().from(samlRequests)).map((r) => r.id)).toEqual(["_live"]);
    expect((await db().select().from(samlAssertions)).map((r) => r.assertionId)).toEqual(["_live"]);
  });
});
