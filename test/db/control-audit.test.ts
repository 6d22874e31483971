import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, users } from "../../src/db/schema";
import { controlDb, shardDb } from "../../src/db/shards";
import { sweepHostnameStatus } from "../../src/modules/white-label/hostnames";
import { useDnsOverHttps } from "../../src/providers/dns";
import { useCustomHostnameProvider } from "../../src/providers/hostnames";
import { CloudflareCustomHostnames } from "../../src/providers/hostnames/cloudflare";
import { cloudflareStandIn } from "../helpers/cloudflare-standin";
import { emailIdsTo, latestEmailTo, nextEmailTo, tokenIn } from "../helpers/dev-mailbox";
import { dohStandIn } from "../helpers/doh-standin";
import { request } from "../helpers/http";
import { createWorld, type World } from "../helpers/seed";
import { postResponse, startLogin } from "../sso/flow";
import { base64, KEYS, signedResponse } from "../sso/idp";
import { enableSso, spUrls } from "../sso/setup";

/**
 * Audit rows of control-plane changes made outside /v1 (SAML, /agency, /admin, white-label) land on
 * the tenant's shard, so the tenant's GET /v1/audit-events shows them (docs/scaling.md).
 */
const cf = cloudflareStandIn({ token: "cf-test-token", zoneId: "zone123" });
const dns = dohStandIn();
let w: World;
beforeAll(async () => {
  // tenant A on shard 1 (its own database), tenant B on shard 0 (the control database)
  w = await createWorld({ shardA: 1, shardB: 0 });
  useCustomHostnameProvider(new CloudflareCustomHostnames({ apiToken: "cf-test-token", zoneId: "zone123" }, cf.fetch));
  useDnsOverHttps(dns.fetch);
});
afterAll(() => {
  useCustomHostnameProvider(null);
  useDnsOverHttps(null);
});

/** The tenant's audit trail through its own API, oldest first. */
async function auditTrail(as: "tenantAdmin" | "tenantBAdmin", query = "") {
  const res = await w.as(as).get(`/v1/audit-events?limit=200${query}`);
  expect(res.status).toBe(200);
  return (
    res.body.data as {
      action: string;
      resourceId: string;
      tenantId: string;
      actorType: string;
      metadata: Record<string, unknown>;
    }[]
  ).reverse();
}

/** Rows of this tenant on the control database; for a shard-1 tenant there must be none. */
const onControl = async (tenantId: string) =>
  (
    await controlDb(env)
      .select({ action: auditEvents.action })
      .from(auditEvents)
      .where(eq(auditEvents.tenantId, tenantId))
  ).map((r) => r.action);

describe("audit rows of control-plane changes go to the tenant's shard", () => {
  it("SAML: JIT provisioning, logins and a refused login of a shard-1 tenant", async () => {
    await enableSso(w);
    const sp = spUrls(w.tenantA.slug);
    const login = async (nameId: string, key = KEYS.idp1.key) => {
      const started = await startLogin(sp.slug);
      return postResponse(
        sp.slug,
        base64(
          signedResponse({ acsUrl: sp.acsUrl, audience: sp.audience, inResponseTo: started.requestId, nameId }, key),
        ),
        started.relayState,
      );
    };
    const email = `jit-${Date.now()}@example.test`;
    expect((await login(email)).status).toBe(302);
    expect((await login(email)).status).toBe(302);
    expect((await login(email, KEYS.idp2.key)).status).toBe(401);
    // the user and its grant are control-plane rows
    const user = await controlDb(env)
      .select({ id: users.id, tenantId: users.tenantId })
      .from(users)
      .where(eq(users.email, email))
      .get();
    expect(user).toEqual({ id: expect.any(String), tenantId: w.tenantA.id });

    const trail = (await auditTrail("tenantAdmin")).filter(
      (a) => a.resourceId === user!.id || a.action === "sso.login_failed",
    );
    // rows of one batch share their instant, so compare without order
    expect(trail.map((a) => `${a.action}:${String(a.metadata.provisioned ?? a.metadata.reason ?? "")}`).sort()).toEqual(
      ["sso.login:false", "sso.login:true", "sso.login_failed:signature_invalid", "user.created:"],
    );
    expect(trail.find((a) => a.action === "sso.login")).toMatchObject({ tenantId: w.tenantA.id, actorType: "user" });
    expect(await onControl(w.tenantA.id)).toEqual([]);
  });

  it("agency and admin provisioning: users added to a shard-1 tenant, and the tenant paused and resumed", async () => {
    const added = await w
      .as("agencyAdmin")
      .post(`/agency/tenants/${w.tenantA.id}/users`, { email: `added-${Date.now()}@example.test`, role: "viewer" });
    expect(added.status).toBe(201);
    const paused = await w
      .as("platformAdmin")
      .patch(`/admin/tenants/${w.tenantA.id}`, { isActive: false, pausedReason: "billing" });
    expect(paused.status).toBe(200);
    expect((await w.as("platformAdmin").patch(`/admin/tenants/${w.tenantA.id}`, { isActive: true })).status).toBe(200);

    const trail = await auditTrail("tenantAdmin", "&resourceType=user");
    expect(trail.filter((a) => a.resourceId === added.body.id).map((a) => [a.action, a.metadata.via])).toEqual([
      ["user.invited", "agency"],
    ]);
    const tenantTrail = (await auditTrail("tenantAdmin", "&resourceType=tenant")).map((a) => [a.action, a.actorType]);
    expect(tenantTrail).toEqual([
      ["tenant.paused", "platform_admin"],
      ["tenant.resumed", "platform_admin"],
    ]);
    expect(await onControl(w.tenantA.id)).toEqual([]);
  });

  it("/auth: a shard-1 tenant's user accepting an invite and resetting a password", async () => {
    const email = `invitee-${Date.now()}@example.test`;
    const invited = await w.as("tenantAdmin").post("/v1/users/invite", { email, name: "Invitee", role: "viewer" });
    expect(invited.status).toBe(201);
    const setup = await request("POST", "/auth/setup-password", {
      body: { inviteToken: tokenIn((await latestEmailTo(email))!.text), name: "Accepted", password: "accepted-pass-1" },
    });
    expect(setup.status).toBe(200);
    const seen = await emailIdsTo(email);
    expect((await request("POST", "/auth/forgot-password", { body: { email } })).body).toEqual({ ok: true });
    const token = tokenIn((await nextEmailTo(email, seen)).text);
    expect(
      (await request("POST", "/auth/reset-password", { body: { token, password: "reset-pass-22" } })).body,
    ).toMatchObject({ ok: true });

    const trail = (await auditTrail("tenantAdmin", `&resourceId=${invited.body.id}`)).map((a) => [
      a.action,
      a.actorType,
    ]);
    expect(trail).toEqual([
      ["user.invited", "user"],
      ["user.invite_accepted", "user"],
      ["user.password_reset_requested", "system"],
      ["user.password_reset", "user"],
    ]);
    expect(await onControl(w.tenantA.id)).toEqual([]);
  });

  it("white-label: a shard-1 tenant's brand override and hostname (API and status sweep) are audited on its shard; an agency's on the control database", async () => {
    expect((await w.as("tenantAdmin").put("/v1/branding", { primaryColor: "#7C3AED" })).status).toBe(200);
    expect((await w.as("tenantAdmin").delete("/v1/branding")).status).toBe(204);
    const host = await w.as("tenantAdmin").post("/v1/hostnames", { hostname: `t${Date.now()}.shard-one.test` });
    expect(host.status).toBe(201);
    cf.activate(host.body.hostname);
    dns.setTxt(host.body.dns.verification.name, host.body.dns.verification.value);
    expect(await sweepHostnameStatus(env, controlDb(env), new Date())).toMatchObject({ checked: expect.any(Number) });
    expect((await w.as("tenantAdmin").delete(`/v1/hostnames/${host.body.id}`)).status).toBe(204);

    const trail = (await auditTrail("tenantAdmin")).filter(
      (a) => a.action.startsWith("white_label.") || a.action.startsWith("custom_hostname."),
    );
    // the sweep's two rows (verified, status changed) share one batch and one timestamp: compared as a set
    expect(trail.map((a) => `${a.action} ${a.actorType}`).sort()).toEqual([
      "custom_hostname.created user",
      "custom_hostname.deleted user",
      "custom_hostname.status_changed system",
      "custom_hostname.verified system",
      "white_label.brand_deleted user",
      "white_label.brand_saved user",
    ]);
    expect(await onControl(w.tenantA.id)).toEqual([]);

    // an agency's brand has no tenant: its audit row stays on the control database, with the change in one batch
    const agencyBrand = await w
      .as("agencyAdmin")
      .put(`/agency/agencies/${w.agencyA.id}/branding`, { name: "Northwind" });
    expect(agencyBrand.status).toBe(200);
    const agencyRows = await controlDb(env)
      .select({ action: auditEvents.action })
      .from(auditEvents)
      .where(eq(auditEvents.resourceId, w.agencyA.id));
    expect(agencyRows).toEqual([{ action: "white_label.brand_saved" }]);
    expect(
      await shardDb(env, 1)
        .select({ id: auditEvents.id })
        .from(auditEvents)
        .where(eq(auditEvents.resourceId, w.agencyA.id)),
    ).toEqual([]);
  });

  it("a shard-0 tenant's control-plane changes are audited on shard 0, which is the control database", async () => {
    expect((await w.as("tenantBAdmin").put("/v1/branding", { name: "B brand" })).status).toBe(200);
    expect((await auditTrail("tenantBAdmin")).map((a) => a.action)).toContain("white_label.brand_saved");
    expect(await onControl(w.tenantB.id)).toContain("white_label.brand_saved");
  });
});
