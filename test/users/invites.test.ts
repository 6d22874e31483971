import { and, eq, isNull } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, roleAssignments, users, userTokens } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { emailIdsTo, nextEmailTo, tokenIn } from "../helpers/dev-mailbox";
import { request } from "../helpers/http";
import { control, createWorld, db, type World } from "../helpers/seed";

/** Invite resend and revoke (#46): POST /v1/users/{id}/invite/resend, DELETE /v1/users/{id}/invite. */

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const admin = () => w.as("tenantAdmin");
const setup = (inviteToken: string) =>
  request("POST", "/auth/setup-password", {
    body: { inviteToken, name: "Invited Person", password: "a-new-password" },
  });

/** Tenant A's admin invites this address; the invitee's id and the token the mail carried. */
async function invite(email: string, as: "tenantAdmin" | "tenantBAdmin" = "tenantAdmin") {
  const seen = await emailIdsTo(email);
  const res = await w.as(as).post("/v1/users/invite", { email, role: "tenant_user" });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.id as string, token: tokenIn((await nextEmailTo(email, seen)).text) };
}

const auditOf = (id: string, action: string) =>
  db()
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.resourceId, id), eq(auditEvents.action, action)));

describe("POST /v1/users/{id}/invite/resend", () => {
  it("mails a fresh token through the platform's sender; the old token no longer works, the new one does", async () => {
    const { id, token: old } = await invite("resend.me@example.test");
    const seen = await emailIdsTo("resend.me@example.test");
    const res = await admin().post(`/v1/users/${id}/invite/resend`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id,
      email: "resend.me@example.test",
      roles: ["tenant_user"],
      invitePending: true,
    });
    const mail = await nextEmailTo("resend.me@example.test", seen);
    expect(mail).toMatchObject({ tenantId: null, subject: expect.stringContaining(w.tenantA.name) });
    const fresh = tokenIn(mail.text);
    expect(fresh).not.toBe(old);
    const stale = await setup(old);
    expect(stale.status).toBe(400);
    expect(stale.body.code).toBe("INVALID_TOKEN");
    expect((await setup(fresh)).status).toBe(200);
    const [audit] = await auditOf(id, "user.invite_resent");
    expect(audit).toMatchObject({ tenantId: w.tenantA.id, actorId: w.users.tenantAdmin.id });
    expect(JSON.stringify(audit)).not.toContain(fresh);
  });

  it("409 once the invite was accepted or for a member who has a password", async () => {
    const { id, token } = await invite("accepted.first@example.test");
    expect((await setup(token)).status).toBe(200);
    const res = await admin().post(`/v1/users/${id}/invite/resend`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("CONFLICT");
    expect((await admin().post(`/v1/users/${w.users.manager.id}/invite/resend`)).status).toBe(409);
  });
});

describe("DELETE /v1/users/{id}/invite", () => {
  it("makes the token unusable and removes the pending person from the tenant; a new invite works", async () => {
    const { id, token } = await invite("revoke.me@example.test");
    expect((await admin().delete(`/v1/users/${id}/invite`)).status).toBe(204);
    const refused = await setup(token);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe("INVALID_TOKEN");
    expect((await admin().get(`/v1/users/${id}`)).status).toBe(404);
    const listed = await admin().get("/v1/users?limit=200");
    expect(listed.body.data.map((u: { id: string }) => u.id)).not.toContain(id);
    const [audit] = await auditOf(id, "user.invite_revoked");
    expect(audit).toMatchObject({
      tenantId: w.tenantA.id,
      actorId: w.users.tenantAdmin.id,
      previousState: { roles: ["tenant_user"] },
      nextState: { roles: [] },
    });
    expect((await admin().post(`/v1/users/${id}/invite/resend`)).status).toBe(404);
    expect((await admin().delete(`/v1/users/${id}/invite`)).status).toBe(404);
    const again = await invite("revoke.me@example.test");
    expect(again.id).toBe(id);
    expect((await setup(again.token)).status).toBe(200);
  });

  it("leaves another tenant's invite of the same person working", async () => {
    const a = await invite("two.tenants@example.test");
    const b = await invite("two.tenants@example.test", "tenantBAdmin");
    expect(b.id).toBe(a.id);
    expect((await admin().delete(`/v1/users/${a.id}/invite`)).status).toBe(204);
    expect((await setup(a.token)).body.code).toBe("INVALID_TOKEN");
    const accepted = await setup(b.token);
    expect(accepted.status).toBe(200);
    const me = await request("GET", "/me", { token: accepted.body.token, tenantId: w.tenantB.id });
    expect(me.body.tenantAccess).toMatchObject({ tenantId: w.tenantB.id, role: "tenant_user" });
  });

  it("409 for a member who has a password (DELETE /v1/users/{id} removes them)", async () => {
    const res = await admin().delete(`/v1/users/${w.users.viewer.id}/invite`);
    expect(res.status).toBe(409);
    expect((await admin().get(`/v1/users/${w.users.viewer.id}`)).status).toBe(200);
  });
});

describe("who may resend or revoke", () => {
  it("a tenant admin only: viewer, tenant_user and manager are 403 and the token still works", async () => {
    const { id, token } = await invite("roles.check@example.test");
    for (const as of ["viewer", "tenantUser", "manager"] as const) {
      expect((await w.as(as).post(`/v1/users/${id}/invite/resend`)).status, as).toBe(403);
      expect((await w.as(as).delete(`/v1/users/${id}/invite`)).status, as).toBe(403);
    }
    expect((await setup(token)).status).toBe(200);
  });

  it("the agency's admin and the platform admin act as the tenant's admin; another agency's admin is 403", async () => {
    const { id } = await invite("agency.acts@example.test");
    expect((await w.as("otherAgencyAdmin").post(`/v1/users/${id}/invite/resend`)).status).toBe(403);
    expect((await w.as("otherAgencyAdmin").delete(`/v1/users/${id}/invite`)).status).toBe(403);
    expect((await w.as("agencyAdmin").post(`/v1/users/${id}/invite/resend`)).status).toBe(200);
    expect((await w.as("platformAdmin").delete(`/v1/users/${id}/invite`)).status).toBe(204);
  });

  it("another tenant's invite is 404, and stays usable; an unknown id is 404", async () => {
    const { id, token } = await invite("b.only@example.test", "tenantBAdmin");
    for (const res of [
      await admin().post(`/v1/users/${id}/invite/resend`),
      await admin().delete(`/v1/users/${id}/invite`),
      await admin().post("/v1/users/no-such-user/invite/resend"),
      await admin().delete("/v1/users/no-such-user/invite"),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("NOT_FOUND");
    }
    expect((await setup(token)).status).toBe(200);
  });
});

/** A person SAML provisioned in tenant A (no password, no invite: they sign in at their IdP). */
async function samlMember(email: string) {
  const id = newId();
  const now = new Date().toISOString();
  await control().insert(users).values({
    id,
    tenantId: w.tenantA.id,
    email,
    name: "Sam Saml",
    authProvider: "saml",
    isActive: true,
    createdAt: now,
    updatedAt: now,
  });
  await control().insert(roleAssignments).values({
    id: newId(),
    userId: id,
    role: "tenant_user",
    scopeType: "tenant",
    scopeId: w.tenantA.id,
    createdAt: now,
  });
  return id;
}

describe("people who never had an invite", () => {
  it("a SAML-provisioned member is 409 to resend and to revoke, mails nothing and keeps their role", async () => {
    const id = await samlMember("sam.saml@example.test");
    const seen = await emailIdsTo("sam.saml@example.test");
    const resend = await admin().post(`/v1/users/${id}/invite/resend`);
    expect(resend.status, JSON.stringify(resend.body)).toBe(409);
    expect(resend.body.code).toBe("CONFLICT");
    const revoke = await admin().delete(`/v1/users/${id}/invite`);
    expect(revoke.status).toBe(409);
    expect(await emailIdsTo("sam.saml@example.test")).toEqual(seen);
    expect(await control().select().from(userTokens).where(eq(userTokens.userId, id))).toEqual([]);
    expect((await admin().get(`/v1/users/${id}`)).body.roles).toEqual(["tenant_user"]);
  });
});

describe("resend and revoke at the same time", () => {
  it("never leaves a usable token for a revoked invite (12 rounds, both orders in flight)", async () => {
    const leaks: string[] = [];
    for (let i = 0; i < 12; i++) {
      const email = `race.${i}@example.test`;
      const { id } = await invite(email);
      const [resend, revoke] = await Promise.all([
        admin().post(`/v1/users/${id}/invite/resend`),
        admin().delete(`/v1/users/${id}/invite`),
      ]);
      expect(revoke.status, JSON.stringify(revoke.body)).toBe(204);
      expect([200, 404, 409], JSON.stringify(resend.body)).toContain(resend.status);
      const live = await control()
        .select({ id: userTokens.id })
        .from(userTokens)
        .where(and(eq(userTokens.userId, id), eq(userTokens.purpose, "invite"), isNull(userTokens.usedAt)));
      if (live.length) leaks.push(`${email}: ${live.length} live token(s), resend ${resend.status}`);
    }
    expect(leaks).toEqual([]);
  });
});
