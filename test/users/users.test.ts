import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, outboxMessages, users, userTokens } from "../../src/db/schema";
import { sha256Hex } from "../../src/lib/crypto";
import { RESET_EMAILS_PER_HOUR } from "../../src/modules/auth/password.service";
import { emailIdsTo, latestEmailTo, nextEmailTo, tokenIn } from "../helpers/dev-mailbox";
import { request } from "../helpers/http";
import { createWorld, db, seedUser, TEST_PASSWORD, type World } from "../helpers/seed";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const admin = () => w.as("tenantAdmin");
const login = (email: string, password: string) => request("POST", "/auth/login", { body: { email, password } });
const expireTokensOf = (userId: string) =>
  db()
    .update(userTokens)
    .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
    .where(eq(userTokens.userId, userId));

describe("invite -> setup-password -> login", () => {
  let invited = "";
  let token = "";

  it("invites with a role and emails a token whose hash alone is stored", async () => {
    const res = await admin().post("/v1/users/invite", {
      email: "New.Hire@Example.test",
      name: "New Hire",
      role: "tenant_user",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      email: "new.hire@example.test",
      name: "New Hire",
      tenantId: w.tenantA.id,
      roles: ["tenant_user"],
      invitePending: true,
      isActive: true,
    });
    invited = res.body.id;
    const email = await latestEmailTo("new.hire@example.test");
    // account mail: the platform's sender (no tenant), never the tenant's own transport (docs/SECURITY.md)
    expect(email).toMatchObject({ tenantId: null, subject: expect.stringContaining(w.tenantA.name) });
    token = tokenIn(email!.text);
    const stored = await db().select().from(userTokens).where(eq(userTokens.userId, invited));
    expect(stored).toEqual([
      expect.objectContaining({ purpose: "invite", tokenHash: await sha256Hex(token), usedAt: null }),
    ]);
    expect(Date.parse(stored[0]!.expiresAt) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    const [audit] = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, invited), eq(auditEvents.action, "user.invited")));
    expect(audit).toMatchObject({ tenantId: w.tenantA.id, actorId: w.users.tenantAdmin.id });
  });

  it("cannot log in before the invite is accepted", async () => {
    expect((await login("new.hire@example.test", "whatever-pass")).status).toBe(401);
  });

  it("accepts the invite once, then logs in with the new password", async () => {
    const setup = await request("POST", "/auth/setup-password", {
      body: { inviteToken: token, name: "Nia Hire", password: "brand-new-pass" },
    });
    expect(setup.status).toBe(200);
    expect(setup.body.user).toEqual({
      id: invited,
      email: "new.hire@example.test",
      name: "Nia Hire",
      tenantId: w.tenantA.id,
    });
    const me = await request("GET", "/me", { token: setup.body.token, tenantId: w.tenantA.id });
    expect(me.body.tenantAccess).toEqual({ tenantId: w.tenantA.id, via: "tenant", role: "tenant_user" });
    const again = await request("POST", "/auth/setup-password", {
      body: { inviteToken: token, name: "X", password: "another-pass" },
    });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe("INVALID_TOKEN");
    expect((await login("new.hire@example.test", "brand-new-pass")).status).toBe(200);
    const listed = await admin().get("/v1/users?limit=200");
    expect(listed.body.data.find((u: { id: string }) => u.id === invited)).toMatchObject({
      invitePending: false,
      name: "Nia Hire",
    });
  });

  it("refuses an expired invite and a garbage token", async () => {
    const res = await admin().post("/v1/users/invite", { email: "late@example.test", role: "viewer" });
    const token = tokenIn((await latestEmailTo("late@example.test"))!.text);
    await expireTokensOf(res.body.id);
    const expired = await request("POST", "/auth/setup-password", {
      body: { inviteToken: token, name: "Late", password: "late-password" },
    });
    expect(expired.status).toBe(400);
    expect(expired.body.code).toBe("INVALID_TOKEN");
    expect(
      (
        await request("POST", "/auth/setup-password", {
          body: { inviteToken: "nope", name: "N", password: "password-1" },
        })
      ).body.code,
    ).toBe("INVALID_TOKEN");
  });

  it("refuses to invite a member twice, a bad role, and a viewer inviting", async () => {
    expect((await admin().post("/v1/users/invite", { email: "new.hire@example.test", role: "viewer" })).status).toBe(
      409,
    );
    const bad = await admin().post("/v1/users/invite", { email: "x@example.test", role: "platform_admin" });
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues[0].path).toBe("role");
    expect((await w.as("viewer").post("/v1/users/invite", { email: "y@example.test", role: "viewer" })).status).toBe(
      403,
    );
  });

  it("grants a role to an existing account of another tenant without touching its password", async () => {
    const seen = await emailIdsTo(w.users.tenantBAdmin.email);
    const res = await admin().post("/v1/users/invite", { email: w.users.tenantBAdmin.email, role: "viewer" });
    expect(res.body).toMatchObject({
      id: w.users.tenantBAdmin.id,
      roles: ["viewer"],
      invitePending: false,
      tenantId: w.tenantB.id,
    });
    expect((await nextEmailTo(w.users.tenantBAdmin.email, seen)).subject).toContain("access");
    expect((await login(w.users.tenantBAdmin.email, TEST_PASSWORD)).status).toBe(200);
  });
});

describe("forgot-password and reset-password", () => {
  let person: Awaited<ReturnType<typeof seedUser>>;
  beforeAll(async () => {
    person = await seedUser({
      grants: [{ role: "viewer", scopeType: "tenant", scopeId: w.tenantA.id }],
      tenantId: w.tenantA.id,
    });
  });

  it("answers ok for an unknown email and sends nothing", async () => {
    const res = await request("POST", "/auth/forgot-password", { body: { email: "ghost@example.test" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(await latestEmailTo("ghost@example.test", 300)).toBeNull();
  });

  it("emails a 1-hour reset token that works once and makes older tokens useless", async () => {
    // wait for each NEW email, not any email to the address (the first one is still there)
    const seen = await emailIdsTo(person.email);
    await request("POST", "/auth/forgot-password", { body: { email: person.email } });
    const first = await nextEmailTo(person.email, seen);
    const older = tokenIn(first.text);
    seen.add(first.id);
    const res = await request("POST", "/auth/forgot-password", { body: { email: person.email.toUpperCase() } });
    expect(res.body).toEqual({ ok: true });
    const newer = tokenIn((await nextEmailTo(person.email, seen)).text);
    expect(newer).not.toBe(older);
    const row = await db()
      .select()
      .from(userTokens)
      .where(eq(userTokens.tokenHash, await sha256Hex(newer)))
      .get();
    expect(Math.abs(Date.parse(row!.expiresAt) - Date.now() - 3_600_000)).toBeLessThan(60_000);

    const requested = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, person.id), eq(auditEvents.action, "user.password_reset_requested")));
    expect(requested.length).toBeGreaterThanOrEqual(2);
    expect(requested[0]).toMatchObject({ actorType: "system", tenantId: w.tenantA.id });
    const reset = await request("POST", "/auth/reset-password", {
      body: { token: newer, password: "reset-password-1" },
    });
    expect(reset.body).toMatchObject({ ok: true, token: expect.any(String), user: { id: person.id } });
    const [done] = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, person.id), eq(auditEvents.action, "user.password_reset")));
    expect(done).toMatchObject({ actorId: person.id, tenantId: w.tenantA.id });
    expect((await login(person.email, "reset-password-1")).status).toBe(200);
    expect((await login(person.email, TEST_PASSWORD)).status).toBe(401);
    const reused = await request("POST", "/auth/reset-password", {
      body: { token: newer, password: "reset-password-2" },
    });
    expect(reused.body.code).toBe("INVALID_TOKEN");
    const old = await request("POST", "/auth/reset-password", { body: { token: older, password: "reset-password-3" } });
    expect(old.body.code).toBe("INVALID_TOKEN");
  });

  it("refuses an expired reset token and a short password", async () => {
    const seen = await emailIdsTo(person.email);
    await request("POST", "/auth/forgot-password", { body: { email: person.email } });
    // the earlier reset's "password changed" mail may arrive meanwhile: wait for the reset mail itself
    const token = tokenIn((await nextEmailTo(person.email, seen, 4_000, "Reset your password")).text);
    const short = await request("POST", "/auth/reset-password", { body: { token, password: "short" } });
    expect(short.status).toBe(400);
    expect(short.body.details.issues[0].path).toBe("password");
    await expireTokensOf(person.id);
    const expired = await request("POST", "/auth/reset-password", { body: { token, password: "long-enough-1" } });
    expect(expired.body.code).toBe("INVALID_TOKEN");
  });
});

describe("reset email quota", () => {
  it("sends at most RESET_EMAILS_PER_HOUR reset emails per account per hour, still answering ok", async () => {
    const flooded = await seedUser({ grants: [] });
    for (let i = 0; i < RESET_EMAILS_PER_HOUR + 2; i++) {
      expect((await request("POST", "/auth/forgot-password", { body: { email: flooded.email } })).body).toEqual({
        ok: true,
      });
    }
    const count = () => db().select().from(outboxMessages).where(eq(outboxMessages.to, flooded.email));
    for (let i = 0; i < 40 && (await count()).length < RESET_EMAILS_PER_HOUR; i++)
      await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setTimeout(r, 200));
    expect(await count()).toHaveLength(RESET_EMAILS_PER_HOUR);
  });
});

describe("managing users", () => {
  let member: Awaited<ReturnType<typeof seedUser>>;
  beforeAll(async () => {
    member = await seedUser({
      grants: [{ role: "viewer", scopeType: "tenant", scopeId: w.tenantA.id }],
      tenantId: w.tenantA.id,
    });
  });

  it("lists the tenant's members with their roles, not other tenants' users", async () => {
    const res = await w.as("viewer").get("/v1/users?limit=200");
    const byId = new Map(res.body.data.map((u: { id: string }) => [u.id, u]));
    expect(byId.get(w.users.manager.id)).toMatchObject({ roles: ["manager"], isActive: true });
    expect(byId.has(w.users.platformAdmin.id)).toBe(false);
    expect(res.body.total).toBe(res.body.data.length);
    expect((await w.as("viewer").get(`/v1/users/${w.users.manager.id}`)).body.email).toBe(w.users.manager.email);
  });

  it("renames, and 404s a user who is not a member", async () => {
    const res = await admin().patch(`/v1/users/${member.id}`, { name: "Renamed" });
    expect(res.body).toMatchObject({ name: "Renamed", roles: ["viewer"] });
    const other = await seedUser({
      grants: [{ role: "viewer", scopeType: "tenant", scopeId: w.tenantB.id }],
      tenantId: w.tenantB.id,
    });
    expect((await admin().patch(`/v1/users/${other.id}`, { name: "X" })).status).toBe(404);
    expect((await w.as("tenantBAdmin").get(`/v1/users/${member.id}`)).status).toBe(404);
  });

  it("replaces roles, which changes what the user may do", async () => {
    expect(
      (await request("POST", "/v1/regions", { token: member.token, tenantId: w.tenantA.id, body: { name: "Before" } }))
        .status,
    ).toBe(403);
    const res = await admin().put(`/v1/users/${member.id}/roles`, { roles: ["manager"] });
    expect(res.body.roles).toEqual(["manager"]);
    expect(
      (await request("POST", "/v1/regions", { token: member.token, tenantId: w.tenantA.id, body: { name: "After" } }))
        .status,
    ).toBe(201);
    const [audit] = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, member.id), eq(auditEvents.action, "user.roles_set")));
    expect(audit).toMatchObject({ previousState: { roles: ["viewer"] }, nextState: { roles: ["manager"] } });
    expect((await admin().put(`/v1/users/${member.id}/roles`, { roles: [] })).status).toBe(400);
    expect((await admin().put(`/v1/users/${w.users.tenantAdmin.id}/roles`, { roles: ["viewer"] })).status).toBe(403);
  });

  it("deactivation stops the user's existing JWT and logins; reactivation restores logins, not the ended sessions", async () => {
    expect((await request("GET", "/v1/locations", { token: member.token, tenantId: w.tenantA.id })).status).toBe(200);
    const off = await admin().patch(`/v1/users/${member.id}`, { isActive: false });
    expect(off.body.isActive).toBe(false);
    const rejected = await request("GET", "/v1/locations", { token: member.token, tenantId: w.tenantA.id });
    expect(rejected.status).toBe(401);
    expect(rejected.body.code).toBe("UNAUTHENTICATED");
    expect((await login(member.email, TEST_PASSWORD)).status).toBe(401);
    await admin().patch(`/v1/users/${member.id}`, { isActive: true });
    expect((await request("GET", "/v1/locations", { token: member.token, tenantId: w.tenantA.id })).status).toBe(401);
    const again = await login(member.email, TEST_PASSWORD);
    expect(again.status).toBe(200);
    expect((await request("GET", "/v1/locations", { token: again.body.token, tenantId: w.tenantA.id })).status).toBe(
      200,
    );
  });

  it("DELETE deactivates a home user, only removes access of a user homed elsewhere, never oneself", async () => {
    expect((await admin().delete(`/v1/users/${member.id}`)).status).toBe(204);
    expect((await db().select().from(users).where(eq(users.id, member.id)).get())!.isActive).toBe(false);
    expect((await login(member.email, TEST_PASSWORD)).status).toBe(401);

    expect((await admin().delete(`/v1/users/${w.users.tenantBAdmin.id}`)).status).toBe(204);
    expect((await admin().get(`/v1/users/${w.users.tenantBAdmin.id}`)).status).toBe(404);
    expect((await login(w.users.tenantBAdmin.email, TEST_PASSWORD)).status).toBe(200);
    expect((await admin().patch(`/v1/users/${w.users.agencyAdmin.id}`, { isActive: false })).status).toBe(404);

    expect((await admin().delete(`/v1/users/${w.users.tenantAdmin.id}`)).status).toBe(403);
  });
});
