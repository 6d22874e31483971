import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CRONS } from "../../src/background/cron";
import { auditEvents, customHostnames } from "../../src/db/schema";
import { customHostnameStatusSweep } from "../../src/modules/white-label/background";
import { customHostOwner, forgetWhiteLabels, tenantWhiteLabel } from "../../src/modules/white-label/resolve";
import { useDnsOverHttps } from "../../src/providers/dns";
import { useCustomHostnameProvider } from "../../src/providers/hostnames";
import { CloudflareCustomHostnames } from "../../src/providers/hostnames/cloudflare";
import { WIRING } from "../../src/wiring";
import { cloudflareStandIn } from "../helpers/cloudflare-standin";
import { dohStandIn } from "../helpers/doh-standin";
import { control, createWorld, db, seedAgency, seedTenant, type World } from "../helpers/seed";

const cf = cloudflareStandIn({ token: "cf-test-token", zoneId: "zone123" });
const dns = dohStandIn();
let w: World;
beforeAll(async () => {
  w = await createWorld();
  useCustomHostnameProvider(new CloudflareCustomHostnames({ apiToken: "cf-test-token", zoneId: "zone123" }, cf.fetch));
  useDnsOverHttps(dns.fetch);
});
afterAll(() => {
  useCustomHostnameProvider(null);
  useDnsOverHttps(null);
});
/**
 * The hostname status sweep as the 5-minute cron runs it (found in the wiring's list), alone: the whole cron
 * would also run every shard sweep over the rows of the test files running beside this one.
 */
const sweep = async (at = Date.now()) => {
  const status = WIRING.sweeps[CRONS.frequent].find((s) => s.name === customHostnameStatusSweep.name);
  expect(status).toBe(customHostnameStatusSweep);
  await status!.run(env as never, new Date(at));
};
/** the customer publishes the verification TXT record the API showed */
const publishProof = (h: { dns: { verification: { name: string; value: string } } }) =>
  dns.setTxt(h.dns.verification.name, h.dns.verification.value);
beforeEach(() => forgetWhiteLabels());

const agencyPath = () => `/agency/agencies/${w.agencyA.id}/hostnames`;

describe("custom hostnames through Cloudflare's API", () => {
  it("creates one: Cloudflare gets the documented POST, the answer carries the DNS records to create; it stays pending", async () => {
    const res = await w.as("agencyAdmin").post(agencyPath(), { hostname: "Reviews.Northwind.TEST." });
    expect(res.status).toBe(201);
    const call = cf.calls.at(-1)!;
    expect(call).toEqual({
      method: "POST",
      path: "/client/v4/zones/zone123/custom_hostnames",
      body: {
        hostname: "reviews.northwind.test",
        ssl: { method: "http", type: "dv", settings: { min_tls_version: "1.2" } },
      },
    });
    const cfId = [...cf.hostnames.values()].find((h) => h.hostname === "reviews.northwind.test")!.id;
    expect(res.body).toMatchObject({
      scope: "agency",
      scopeId: w.agencyA.id,
      hostname: "reviews.northwind.test",
      status: "pending",
      sslStatus: "pending_validation",
      active: false,
      verified: false,
      verifiedAt: null,
      claimExpiresAt: new Date(Date.parse(res.body.createdAt) + 7 * 86400_000).toISOString(),
      dns: {
        cname: { name: "reviews.northwind.test" },
        verification: {
          type: "TXT",
          name: "_reputation-ops-challenge.reviews.northwind.test",
          value: expect.stringMatching(/^rops-verify=[0-9a-f]{32}$/),
        },
        ownership: { type: "txt", name: "_cf-custom-hostname.reviews.northwind.test", value: `verify-${cfId}` },
        ssl: [
          {
            httpUrl: `http://reviews.northwind.test/.well-known/acme-challenge/${cfId}`,
            httpBody: `body-${cfId}`,
            txtName: null,
            txtValue: null,
          },
        ],
      },
    });
    const row = await db().select().from(customHostnames).where(eq(customHostnames.id, res.body.id)).get();
    expect(row).toMatchObject({ providerId: cfId, agencyId: w.agencyA.id });
    const audit = await db().select().from(auditEvents).where(eq(auditEvents.resourceId, res.body.id));
    expect(audit.map((a) => a.action)).toEqual(["custom_hostname.created"]);
    // pending: links keep the platform's host
    expect((await tenantWhiteLabel(control(), w.tenantA.id))?.hostname).toBeNull();
  });

  it("refuses a duplicate (the owner's own claim again: 409 before Cloudflare is called), Cloudflare's own refusal (409), its outage (502), and bad names (400)", async () => {
    const before = cf.calls.length;
    expect((await w.as("agencyAdmin").post(agencyPath(), { hostname: "reviews.northwind.test" })).status).toBe(409);
    expect(cf.calls.length).toBe(before);
    // registered at Cloudflare by someone else (not in our table)
    await cf.fetch("https://api.cloudflare.com/client/v4/zones/zone123/custom_hostnames", {
      method: "POST",
      headers: { authorization: "Bearer cf-test-token", "content-type": "application/json" },
      body: JSON.stringify({ hostname: "taken.example.test", ssl: { method: "http", type: "dv" } }),
    });
    const taken = await w.as("agencyAdmin").post(agencyPath(), { hostname: "taken.example.test" });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toContain("Duplicate custom hostname");
    cf.failNextWith(503);
    const down = await w.as("agencyAdmin").post(agencyPath(), { hostname: "later.northwind.test" });
    expect(down.status).toBe(502);
    expect(down.body.code).toBe("UPSTREAM_ERROR");
    expect(
      await db().select().from(customHostnames).where(eq(customHostnames.hostname, "later.northwind.test")),
    ).toEqual([]);
    for (const hostname of [
      "https://x.test",
      "x.test/path",
      "*.x.test",
      "localhost",
      "10.0.0.1",
      "a..b.test",
      "-a.test",
      "0x7f.1",
      "shop.123",
      "reviews.example.test:8443",
      "user@reviews.example.test",
    ]) {
      expect((await w.as("agencyAdmin").post(agencyPath(), { hostname })).status, hostname).toBe(400);
    }
    expect((await w.as("agencyAdmin").post(agencyPath(), { hostname: "localhost.8787.test" })).status).toBe(201);
  });

  it("stores the one spelling of a name: case, trailing dots, percent-escapes and Unicode are the same claim", async () => {
    const bad = await w.as("agencyAdmin").post(agencyPath(), { hostname: "x.test/evil.example" });
    expect(bad.status).toBe(400);
    for (const spelling of ["reviews.northwind.test", "REVIEWS.NORTHWIND.TEST..", "reviews%2Enorthwind.test"]) {
      const again = await w.as("agencyAdmin").post(agencyPath(), { hostname: spelling });
      expect(again.status, spelling).toBe(409);
    }
    const idn = await w.as("agencyAdmin").post(agencyPath(), { hostname: "Bücher.Northwind.test." });
    expect(idn.status).toBe(201);
    expect(idn.body.hostname).toBe("xn--bcher-kva.northwind.test");
    expect(cf.calls.at(-1)!.body).toMatchObject({ hostname: "xn--bcher-kva.northwind.test" });
    expect((await w.as("agencyAdmin").post(agencyPath(), { hostname: "xn--bcher-kva.northwind.test" })).status).toBe(
      409,
    );
    expect((await w.as("agencyAdmin").delete(`${agencyPath()}/${idn.body.id}`)).status).toBe(204);
  });

  it("Cloudflare alone (a CNAME pointing here) does not make it active: the ownership TXT record is missing", async () => {
    cf.activate("reviews.northwind.test");
    await sweep();
    const host = (await w.as("agencyAdmin").get(agencyPath())).body.data.find(
      (h: { hostname: string }) => h.hostname === "reviews.northwind.test",
    );
    expect(host).toMatchObject({
      status: "active",
      sslStatus: "active",
      active: false,
      verified: false,
      activatedAt: null,
    });
    expect(host.errors[0]).toBe(
      `Ownership not verified: TXT record ${host.dns.verification.name} with value ${host.dns.verification.value} not found`,
    );
    expect(dns.lookups).toContain("_reputation-ops-challenge.reviews.northwind.test");
    forgetWhiteLabels();
    expect(await customHostOwner(control(), "reviews.northwind.test")).toBeNull();
    expect((await tenantWhiteLabel(control(), w.tenantA.id))?.hostname).toBeNull();
    // a resolver failure is "not yet", never "verified"
    dns.setTxt(host.dns.verification.name, "rops-verify=someone-elses-token");
    dns.failNextWith("servfail");
    await sweep();
    const after = (await w.as("agencyAdmin").get(`${agencyPath()}/${host.id}`)).body;
    expect(after).toMatchObject({ active: false, verified: false });
    expect(after.errors[0]).toContain("answered status 2");
  });

  it("becomes active when the sweep finds the TXT record and Cloudflare reports it active; links then use it", async () => {
    const pending = (await w.as("agencyAdmin").get(agencyPath())).body.data.find(
      (h: { hostname: string }) => h.hostname === "reviews.northwind.test",
    );
    publishProof(pending);
    await sweep();
    const list = await w.as("agencyAdmin").get(agencyPath());
    const host = list.body.data.find((h: { hostname: string }) => h.hostname === "reviews.northwind.test");
    expect(host).toMatchObject({
      status: "active",
      sslStatus: "active",
      active: true,
      verified: true,
      claimExpiresAt: null,
      errors: [],
      dns: { ssl: [] },
    });
    expect(host.activatedAt).not.toBeNull();
    expect(host.verifiedAt).toBe(host.activatedAt);
    const audit = await db().select().from(auditEvents).where(eq(auditEvents.resourceId, host.id));
    expect(audit.find((a) => a.action === "custom_hostname.verified")).toMatchObject({
      actorType: "system",
      nextState: { verifiedAt: host.verifiedAt },
    });
    expect(audit.find((a) => a.action === "custom_hostname.status_changed")).toMatchObject({
      actorType: "system",
      previousState: { status: "pending", sslStatus: "pending_validation" },
      nextState: { status: "active", sslStatus: "active" },
    });
    // verified once: later checks do not ask DNS again (the customer may remove the record)
    const asked = dns.lookups.length;
    await w.as("agencyAdmin").post(`${agencyPath()}/${host.id}/refresh`);
    expect(dns.lookups.length).toBe(asked);
    forgetWhiteLabels();
    expect((await tenantWhiteLabel(control(), w.tenantA.id))?.hostname).toBe("reviews.northwind.test");
    expect((await w.as("tenantAdmin").get("/v1/branding")).body.publicBaseUrl).toBe("https://reviews.northwind.test");
    // the other agency's tenant keeps the platform's host
    expect((await w.as("tenantBAdmin").get("/v1/branding")).body.publicBaseUrl).toBe("http://localhost:8787");
  });

  it("a tenant's own active hostname wins over its agency's; refresh asks Cloudflare at once", async () => {
    const created = await w.as("tenantAdmin").post("/v1/hostnames", { hostname: "feedback.acme-dental.test" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ scope: "tenant", scopeId: w.tenantA.id, active: false });
    cf.activate("feedback.acme-dental.test");
    publishProof(created.body);
    const refreshed = await w.as("tenantAdmin").post(`/v1/hostnames/${created.body.id}/refresh`);
    expect(refreshed.body).toMatchObject({ status: "active", sslStatus: "active", active: true });
    expect((await w.as("viewer").get("/v1/branding")).body.publicBaseUrl).toBe("https://feedback.acme-dental.test");
    const sibling = await seedTenant({ agencyId: w.agencyA.id });
    expect((await tenantWhiteLabel(control(), sibling.id))?.hostname).toBe("reviews.northwind.test");
  });

  it("host routing knows an active hostname's owner; a pending one is not routed", async () => {
    expect(await customHostOwner(control(), "feedback.acme-dental.test")).toEqual({
      hostname: "feedback.acme-dental.test",
      scope: "tenant",
      scopeId: w.tenantA.id,
      agencyId: w.agencyA.id,
    });
    expect(await customHostOwner(control(), "localhost.8787.test")).toBeNull();
  });

  it("keeps tenants apart: another tenant's hostname is 404, viewers cannot write, another agency's admin gets 404", async () => {
    const own = (await w.as("tenantAdmin").get("/v1/hostnames")).body.data[0];
    expect((await w.as("tenantBAdmin").get(`/v1/hostnames/${own.id}`)).status).toBe(404);
    expect((await w.as("tenantBAdmin").delete(`/v1/hostnames/${own.id}`)).status).toBe(404);
    expect((await w.as("tenantBAdmin").get("/v1/hostnames")).body.data).toEqual([]);
    expect((await w.as("viewer").post("/v1/hostnames", { hostname: "x.acme.test" })).status).toBe(403);
    expect((await w.as("otherAgencyAdmin").get(agencyPath())).status).toBe(404);
    const agencyHost = (await w.as("agencyAdmin").get(agencyPath())).body.data[0];
    expect((await w.as("otherAgencyAdmin").delete(`${agencyPath()}/${agencyHost.id}`)).status).toBe(404);
    // an agency hostname is not reachable through a tenant's /v1/hostnames
    expect((await w.as("tenantAdmin").get(`/v1/hostnames/${agencyHost.id}`)).status).toBe(404);
  });

  it("deletes from Cloudflare and here; links fall back to the agency's host", async () => {
    const own = (await w.as("tenantAdmin").get("/v1/hostnames")).body.data[0];
    const cfId = (await db().select().from(customHostnames).where(eq(customHostnames.id, own.id)).get())!.providerId!;
    expect((await w.as("tenantAdmin").delete(`/v1/hostnames/${own.id}`)).status).toBe(204);
    expect(cf.calls.at(-1)).toMatchObject({
      method: "DELETE",
      path: `/client/v4/zones/zone123/custom_hostnames/${cfId}`,
    });
    expect(cf.hostnames.has(cfId)).toBe(false);
    expect((await w.as("tenantAdmin").get("/v1/branding")).body.publicBaseUrl).toBe("https://reviews.northwind.test");
    expect((await w.as("tenantAdmin").get(`/v1/hostnames/${own.id}`)).status).toBe(404);
    expect(await customHostOwner(control(), "feedback.acme-dental.test")).toBeNull();
  });

  it("a hostname deleted while its CNAME (and old TXT record) still point here is not handed to the next claimant", async () => {
    // tenant A deleted feedback.acme-dental.test above; its DNS still has the CNAME and the old proof
    const oldProof = "_reputation-ops-challenge.feedback.acme-dental.test";
    const claim = await w.as("tenantBAdmin").post("/v1/hostnames", { hostname: "feedback.acme-dental.test" });
    expect(claim.status).toBe(201);
    expect(claim.body.dns.verification.name).toBe(oldProof);
    cf.activate("feedback.acme-dental.test");
    const refreshed = await w.as("tenantBAdmin").post(`/v1/hostnames/${claim.body.id}/refresh`);
    expect(refreshed.body).toMatchObject({ status: "active", sslStatus: "active", active: false, verified: false });
    forgetWhiteLabels();
    expect(await customHostOwner(control(), "feedback.acme-dental.test")).toBeNull();
    expect((await w.as("tenantBAdmin").get("/v1/branding")).body.publicBaseUrl).toBe("http://localhost:8787");
    // the record's owner could still prove it: a fresh token per claim
    publishProof(claim.body);
    expect((await w.as("tenantBAdmin").post(`/v1/hostnames/${claim.body.id}/refresh`)).body).toMatchObject({
      active: true,
      verified: true,
    });
    await w.as("tenantBAdmin").delete(`/v1/hostnames/${claim.body.id}`);
  });

  it("an unverified claim expires after 7 days: the sweep removes it (Cloudflare too)", async () => {
    const squat = await w
      .as("otherAgencyAdmin")
      .post(`/agency/agencies/${w.agencyB.id}/hostnames`, { hostname: "shop.victim.test" });
    expect(squat.status).toBe(201);
    const cfId = (await db().select().from(customHostnames).where(eq(customHostnames.id, squat.body.id)).get())!
      .providerId!;
    await sweep(Date.now() + 6 * 86400_000);
    expect(
      (await w.as("otherAgencyAdmin").get(`/agency/agencies/${w.agencyB.id}/hostnames/${squat.body.id}`)).status,
    ).toBe(200);
    await sweep(Date.now() + 7 * 86400_000 + 60_000);
    expect(
      (await w.as("otherAgencyAdmin").get(`/agency/agencies/${w.agencyB.id}/hostnames/${squat.body.id}`)).status,
    ).toBe(404);
    expect(cf.hostnames.has(cfId)).toBe(false);
    const audit = await db().select().from(auditEvents).where(eq(auditEvents.resourceId, squat.body.id));
    expect(audit.map((a) => a.action)).toEqual(["custom_hostname.created", "custom_hostname.expired"]);
    expect(audit[1]).toMatchObject({ actorType: "system" });
  });

  it("a claim past its 7 days is removed as soon as someone claims the name, before the sweep ran", async () => {
    const squat = await w
      .as("otherAgencyAdmin")
      .post(`/agency/agencies/${w.agencyB.id}/hostnames`, { hostname: "old.victim.test" });
    const eightDaysAgo = new Date(Date.now() - 8 * 86400_000).toISOString();
    await db()
      .update(customHostnames)
      .set({ createdAt: eightDaysAgo, claimedAt: eightDaysAgo })
      .where(eq(customHostnames.id, squat.body.id));
    const mine = await w.as("agencyAdmin").post(agencyPath(), { hostname: "old.victim.test" });
    expect(mine.status).toBe(201);
    expect(mine.body).toMatchObject({ scope: "agency", scopeId: w.agencyA.id, verified: false });
    expect(await db().select().from(customHostnames).where(eq(customHostnames.id, squat.body.id))).toEqual([]);
  });

  it("without Cloudflare credentials a create is 409 and nothing is stored", async () => {
    useCustomHostnameProvider(null);
    try {
      const res = await w.as("agencyAdmin").post(agencyPath(), { hostname: "nocreds.northwind.test" });
      expect(res.status).toBe(409);
      expect(res.body.error).toContain("CLOUDFLARE_API_TOKEN");
    } finally {
      useCustomHostnameProvider(
        new CloudflareCustomHostnames({ apiToken: "cf-test-token", zoneId: "zone123" }, cf.fetch),
      );
    }
  });
});

// Squatting (issue #44, item 5): a claim filed without DNS control must not keep the real owner out.
describe("an unverified claim blocks nobody", () => {
  const claimFor = (agencyId: string, hostname: string) =>
    w.as("platformAdmin").post(`/agency/agencies/${agencyId}/hostnames`, { hostname });
  const hostnamePath = (agencyId: string, id: string) => `/agency/agencies/${agencyId}/hostnames/${id}`;
  const cfPosts = () => cf.calls.filter((c) => c.method === "POST").length;
  const atCloudflare = (hostname: string) => [...cf.hostnames.values()].some((h) => h.hostname === hostname);

  it("another owner claims a name someone claimed without proof; the first to publish its TXT record wins", async () => {
    const squatter = await seedAgency();
    const owner = await seedAgency();
    const squat = await claimFor(squatter.id, "www.real-owner.test");
    expect(squat.status).toBe(201);
    const posts = cfPosts();
    const real = await claimFor(owner.id, "WWW.Real-Owner.test.");
    expect(real.status, JSON.stringify(real.body)).toBe(201);
    // one Cloudflare record for the name, which both claims read
    expect(cfPosts()).toBe(posts);
    expect(real.body.dns.ownership).toEqual(squat.body.dns.ownership);
    expect(real.body.dns.verification.value).not.toBe(squat.body.dns.verification.value);
    cf.activate("www.real-owner.test");
    publishProof(real.body);
    expect((await w.as("platformAdmin").post(`${hostnamePath(owner.id, real.body.id)}/refresh`)).body).toMatchObject({
      active: true,
      verified: true,
    });
    // the squatter can no longer prove it, even were its record published beside the owner's
    dns.setTxt(real.body.dns.verification.name, real.body.dns.verification.value, squat.body.dns.verification.value);
    const lost = await w.as("platformAdmin").post(`${hostnamePath(squatter.id, squat.body.id)}/refresh`);
    expect(lost.body).toMatchObject({ active: false, verified: false });
    expect(lost.body.errors[0]).toBe("Ownership not verified: another owner proved ownership of this hostname first");
    forgetWhiteLabels();
    expect(await customHostOwner(control(), "www.real-owner.test")).toMatchObject({ scopeId: owner.id });
    // a proven name is taken: a new claim is 409 before Cloudflare is called
    const calls = cf.calls.length;
    expect((await claimFor(squatter.id, "www.real-owner.test")).status).toBe(409);
    expect(cf.calls.length).toBe(calls);
    // the squatter's removal leaves Cloudflare's record, which the owner's hostname uses
    expect((await w.as("platformAdmin").delete(hostnamePath(squatter.id, squat.body.id))).status).toBe(204);
    expect(atCloudflare("www.real-owner.test")).toBe(true);
    forgetWhiteLabels();
    expect(await customHostOwner(control(), "www.real-owner.test")).toMatchObject({ scopeId: owner.id });
  });

  it("an owner holds at most 3 unverified claims, also when it files them at once", async () => {
    const agency = await seedAgency();
    const names = Array.from({ length: 6 }, (_, i) => `shop${i}.cap-owner.test`);
    const results = await Promise.all(names.map((n) => claimFor(agency.id, n)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 409, 409, 409]);
    expect(results.find((r) => r.status === 409)!.body.error).toBe(
      "At most 3 unverified custom hostnames per agency: prove ownership of one (its TXT record) or remove one",
    );
    // a refused claim leaves no record at Cloudflare
    expect(names.map(atCloudflare)).toEqual(results.map((r) => r.status === 201));
    // a proven claim no longer counts
    const first = results.find((r) => r.status === 201)!.body;
    cf.activate(first.hostname);
    publishProof(first);
    expect((await w.as("platformAdmin").post(`${hostnamePath(agency.id, first.id)}/refresh`)).body.verified).toBe(true);
    expect((await claimFor(agency.id, "shop8.cap-owner.test")).status).toBe(201);
    expect((await claimFor(agency.id, "shop9.cap-owner.test")).status).toBe(409);
  });

  it("a claim's 7 days run from the owner's first claim of the name: deleting and claiming again does not extend them", async () => {
    const agency = await seedAgency();
    const name = "late.clock-owner.test";
    const first = await claimFor(agency.id, name);
    expect(first.status).toBe(201);
    expect((await w.as("platformAdmin").delete(hostnamePath(agency.id, first.body.id))).status).toBe(204);
    const again = await claimFor(agency.id, name);
    expect(again.status).toBe(201);
    expect(again.body.claimExpiresAt).toBe(first.body.claimExpiresAt);
    // the same record to publish: one already published still counts
    expect(again.body.dns.verification).toEqual(first.body.dns.verification);
    // eight days after the first claim it has lapsed, and the sweep removes it
    const eightDaysAgo = new Date(Date.now() - 8 * 86400_000).toISOString();
    await env.DB.prepare("update custom_hostname_claims set first_claimed_at = ?1 where hostname = ?2")
      .bind(eightDaysAgo, name)
      .run();
    await env.DB.prepare("update custom_hostnames set claimed_at = ?1 where hostname = ?2")
      .bind(eightDaysAgo, name)
      .run();
    await sweep();
    expect((await w.as("platformAdmin").get(hostnamePath(agency.id, again.body.id))).status).toBe(404);
    // claiming again without the record is refused, with the record that would prove it
    const lapsed = await claimFor(agency.id, name);
    expect(lapsed.status).toBe(409);
    expect(lapsed.body.error).toBe(
      `The claim on ${name} lapsed at ${new Date(Date.parse(eightDaysAgo) + 7 * 86400_000).toISOString()} without proof of ownership: publish the TXT record ${first.body.dns.verification.name} with the value ${first.body.dns.verification.value}, then claim it again`,
    );
    // with the record published, the claim is proven at once
    publishProof(first.body);
    const proven = await claimFor(agency.id, name);
    expect(proven.status).toBe(201);
    expect(proven.body).toMatchObject({ verified: true, claimExpiresAt: null });
  });
});
