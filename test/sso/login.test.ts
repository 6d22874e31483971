import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, roleAssignments, users } from "../../src/db/schema";
import { ConsoleBrowser, textOf } from "../console/helpers";
import { request } from "../helpers/http";
import { createWorld, db, seedTenant, seedUser, type World } from "../helpers/seed";
import { consoleExchange as exchange, postResponse, startLogin } from "./flow";
import { base64, IDP, signedResponse } from "./idp";
import { BASE, enableSso, type SpUrls, spUrls } from "./setup";

let w: World;
let sp: SpUrls;

beforeAll(async () => {
  w = await createWorld();
  sp = spUrls(w.tenantA.slug);
  await enableSso(w, {
    attributeMapping: { name: "displayName", role: "groups", roleValues: { "Rep Managers": "manager" } },
  });
});

async function login(nameId: string, attributes?: Record<string, string | string[]>) {
  const started = await startLogin(sp.slug);
  const xml = signedResponse({
    acsUrl: sp.acsUrl,
    audience: sp.audience,
    inResponseTo: started.requestId,
    nameId,
    attributes,
  });
  return postResponse(sp.slug, base64(xml), started.relayState);
}

/** A new tenant whose admin saved these SSO settings; returns its slug. */
async function seedTenantWithSso(settings: Record<string, unknown>): Promise<string> {
  const t = await seedTenant({ name: "Metadata Co" });
  const admin = await seedUser({
    grants: [{ role: "tenant_admin", scopeType: "tenant", scopeId: t.id }],
    tenantId: t.id,
  });
  const res = await request("PUT", "/v1/settings/sso", { token: admin.token, tenantId: t.id, body: settings });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return t.slug;
}

describe("SP metadata and AuthnRequest", () => {
  it("serves SP metadata XML with the entity id, the ACS URL and signed assertions wanted", async () => {
    const res = await request("GET", `/auth/saml/${sp.slug}/metadata`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/xml");
    expect(res.text).toContain(`entityID="${sp.audience}"`);
    expect(res.text).toMatch(new RegExp(`AssertionConsumerService[^>]*Location="${sp.acsUrl}"`));
    expect(res.text).toContain('WantAssertionsSigned="true"');
    expect(res.text).toContain("urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress");
  });

  it("redirects to the IdP with an AuthnRequest and a RelayState carrying its id", async () => {
    const started = await startLogin(sp.slug);
    expect(`${started.location.origin}${started.location.pathname}`).toBe(IDP.ssoUrl);
    expect(started.relayState).toBe(started.requestId);
    expect(started.authnRequest).toContain(`AssertionConsumerServiceURL="${sp.acsUrl}"`);
    expect(started.authnRequest).toContain(`Destination="${IDP.ssoUrl}"`);
    expect(started.authnRequest).toContain(`>${sp.audience}</saml:Issuer>`);
  });

  it("serves SP metadata before the IdP is configured (the admin needs it to create the app at the IdP)", async () => {
    // tenant B has no SSO settings at all
    const b = spUrls(w.tenantB.slug);
    const res = await request("GET", `/auth/saml/${b.slug}/metadata`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/xml");
    expect(res.text).toContain(`entityID="${b.audience}"`);
    expect(res.text).toMatch(new RegExp(`AssertionConsumerService[^>]*Location="${b.acsUrl}"`));
    expect(res.text).toContain('WantAssertionsSigned="true"');
    // saved but disabled settings without any IdP detail: their own entity id and ACS URL
    const own = await seedTenantWithSso({
      enabled: false,
      issuer: "urn:acme:sp",
      callbackUrl: "https://sso.acme.example/acs",
    });
    const saved = await request("GET", `/auth/saml/${own}/metadata`);
    expect(saved.status).toBe(200);
    expect(saved.text).toContain('entityID="urn:acme:sp"');
    expect(saved.text).toMatch(/AssertionConsumerService[^>]*Location="https:\/\/sso\.acme\.example\/acs"/);
  });

  it("is 404 for an unknown slug, and sign-in is 404 for a tenant without SSO enabled", async () => {
    for (const path of [
      "/auth/saml/no-such-tenant/metadata",
      "/auth/saml/no-such-tenant/init",
      `/auth/saml/${w.tenantB.slug}/init`,
    ]) {
      const res = await request("GET", path);
      expect(res.status, path).toBe(404);
      expect(res.body.code).toBe("NOT_FOUND");
    }
    const cb = await postResponse(w.tenantB.slug, base64("<x/>"));
    expect(cb.status).toBe(404);
  });
});

describe("callback input and the completion page", () => {
  it("is 400 without a SAMLResponse field", async () => {
    const res = await request("POST", `/auth/saml/${sp.slug}/callback`, {
      body: "RelayState=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0].path).toBe("SAMLResponse");
  });

  it("takes the code out of the address bar at once, and a made-up code signs no one in", async () => {
    const res = await request("GET", "/sso/complete?code=abc", { unchecked: true });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/sso/complete");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.getAll("set-cookie").join()).toMatch(
      /sso-code=abc; Max-Age=60; Path=\/sso\/complete; HttpOnly; SameSite=Lax/,
    );
    const b = new ConsoleBrowser();
    await b.get("/sso/complete?code=abc");
    const page = await b.get("/sso/complete");
    expect(page.status).toBe(400);
    expect(page.text).toContain("This sign-in could not be completed");
    const posted = await b.post("/sso/complete", {}, { csrf: null });
    expect(posted.status).toBe(400);
    expect(b.cookies.has("session")).toBe(false);
  });
});

describe("sign-in", () => {
  it("creates a JIT user once, hands the console a single-use code it exchanges for a session, and audits the login", async () => {
    const email = "ann.jit@example.test";
    const res = await login(email, { displayName: "Ann Jit", groups: ["Everyone", "Rep Managers"] });
    expect(res.status, res.text).toBe(302);
    const location = res.headers.get("location")!;
    expect(location).toMatch(new RegExp(`^${BASE}/sso/complete\\?code=[A-Za-z0-9_-]{43}$`));
    expect(res.headers.get("cache-control")).toBe("no-store");

    const { b, ask } = await exchange(location);
    expect(textOf(ask.text)).toContain(`signed you in as ${email}`);
    const home = await b.follow(await b.get("/app"));
    expect(textOf(home.text)).toContain(`${w.tenantA.name} · Manager`);
    const user = await db().select().from(users).where(eq(users.email, email)).get();
    expect(user).toMatchObject({ name: "Ann Jit", tenantId: w.tenantA.id, authProvider: "saml" });
    // the code works once
    const again2 = new ConsoleBrowser();
    await again2.get(new URL(location).pathname + new URL(location).search);
    expect((await again2.get("/sso/complete")).status).toBe(400);

    const again = await login(email, { displayName: "Ann Renamed" });
    expect(again.status).toBe(302);
    const counted = await db().select({ n: count() }).from(users).where(eq(users.email, email));
    expect(counted).toEqual([{ n: 1 }]);

    const audits = await db().select().from(auditEvents).where(eq(auditEvents.resourceId, user!.id));
    expect(audits.map((a) => a.action).sort()).toEqual(["sso.login", "sso.login", "user.created"]);
    const first = audits.find((a) => a.action === "sso.login" && (a.metadata as { provisioned: boolean }).provisioned);
    expect(first).toMatchObject({ tenantId: w.tenantA.id, actorId: user!.id, actorType: "user" });
  });

  it("gives a JIT user the default role when no role value maps", async () => {
    const res = await login("bo.default@example.test");
    expect(res.status).toBe(302);
    const user = await db().select().from(users).where(eq(users.email, "bo.default@example.test")).get();
    const grants = await db().select().from(roleAssignments).where(eq(roleAssignments.userId, user!.id));
    expect(grants.map((g) => [g.role, g.scopeType, g.scopeId])).toEqual([["tenant_user", "tenant", w.tenantA.id]]);
    expect(user!.name).toBe("bo.default");
  });

  it("signs in an existing user of the tenant by email (case-insensitive)", async () => {
    const res = await login(w.users.viewer.email.toUpperCase());
    expect(res.status).toBe(302);
    const { ask } = await exchange(res.headers.get("location")!);
    expect(textOf(ask.text)).toContain(`signed you in as ${w.users.viewer.email}`);
  });

  it("refuses a deactivated user, and users with grants beyond this tenant (platform, agency, another tenant)", async () => {
    const inactive = await seedUser({
      grants: [{ role: "tenant_user", scopeType: "tenant", scopeId: w.tenantA.id }],
      tenantId: w.tenantA.id,
      isActive: false,
    });
    const twoTenants = await seedUser({
      grants: [
        { role: "tenant_user", scopeType: "tenant", scopeId: w.tenantA.id },
        { role: "viewer", scopeType: "tenant", scopeId: w.tenantB.id },
      ],
      tenantId: w.tenantA.id,
    });
    const cases: [string, string][] = [
      [inactive.email, "user_inactive"],
      [twoTenants.email, "user_not_eligible"],
      [w.users.platformAdmin.email, "user_not_eligible"],
      [w.users.agencyAdmin.email, "user_not_eligible"],
      [w.users.tenantBAdmin.email, "user_not_eligible"],
    ];
    for (const [email, reason] of cases) {
      const res = await login(email);
      expect(res.status, email).toBe(401);
      expect(res.body).toMatchObject({ code: "UNAUTHENTICATED", details: { reason } });
    }
    const failures = await db().select().from(auditEvents).where(eq(auditEvents.action, "sso.login_failed"));
    expect(failures.some((f) => (f.metadata as { email?: string }).email === w.users.platformAdmin.email)).toBe(true);
  });

  it("is 401 for an unknown email when JIT provisioning is off", async () => {
    await enableSso(w, { jitProvisioning: false });
    const res = await login("nobody@example.test");
    expect(res.status).toBe(401);
    expect(res.body.details).toEqual({ reason: "user_not_found" });
    expect(await db().select().from(users).where(eq(users.email, "nobody@example.test"))).toEqual([]);
    await enableSso(w, { jitProvisioning: true });
  });
});
