import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, backgroundJobs, contacts, integrations } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { testIntegration } from "../../src/modules/integrations/connection-test";
import { runCrmImport } from "../../src/modules/integrations/crm-import";
import { setJobsFetch } from "../../src/modules/jobs/runner";
import { env } from "../automation/helpers";
import { createWorld, db, type World } from "../helpers/seed";
import { type Call, ctxFor, jsonResponse, newLocation, standIn } from "../reviews/helpers";

let w: World;
let hubspotId: string;
let salesforceId: string;

const hubspotPages: Record<string, unknown> = {
  first: {
    results: [
      {
        id: "101",
        properties: {
          email: "Ann.Lee@Example.com",
          phone: "+1 415 555 0101",
          firstname: "Ann",
          lastname: "Lee",
          hs_object_id: "101",
        },
        createdAt: "2025-01-01T00:00:00Z",
        updatedAt: "2025-02-01T00:00:00Z",
        archived: false,
      },
      {
        id: "102",
        properties: { email: null, phone: "(415) 555-0102", firstname: "Bo", lastname: null },
        createdAt: "2025-01-02T00:00:00Z",
        updatedAt: "2025-01-02T00:00:00Z",
        archived: false,
      },
      {
        id: "103",
        properties: { email: null, phone: null, firstname: "Nobody", lastname: null },
        createdAt: "2025-01-03T00:00:00Z",
        updatedAt: "2025-01-03T00:00:00Z",
        archived: false,
      },
    ],
    paging: { next: { after: "103", link: "https://api.hubapi.com/crm/v3/objects/contacts?after=103" } },
  },
  "103": {
    results: [
      {
        id: "104",
        properties: { email: "cy@example.com", phone: "not a phone", firstname: "Cy", lastname: "Park" },
        createdAt: "2025-01-04T00:00:00Z",
        updatedAt: "2025-01-04T00:00:00Z",
        archived: false,
      },
    ],
  },
};

const hubspot = () =>
  standIn((call: Call) => {
    if (call.headers.get("authorization") !== "Bearer hs-private-app-token")
      return jsonResponse(
        { status: "error", message: "Authentication credentials not found.", category: "INVALID_AUTHENTICATION" },
        401,
      );
    return jsonResponse(hubspotPages[call.url.searchParams.get("after") ?? "first"] ?? { results: [] });
  });

const NEXT = "/services/data/v60.0/query/01gD0000002HU6KIAW-2000";
const salesforce = () =>
  standIn((call: Call) => {
    if (call.headers.get("authorization") !== "Bearer sf-token")
      return jsonResponse([{ message: "Session expired or invalid", errorCode: "INVALID_SESSION_ID" }], 401);
    if (call.url.pathname === NEXT) {
      return jsonResponse({
        totalSize: 3,
        done: true,
        records: [
          {
            attributes: { type: "Contact", url: "/services/data/v60.0/sobjects/Contact/003C" },
            Id: "003C",
            Email: "dee@example.com",
            Phone: null,
            FirstName: "Dee",
            LastName: "Diaz",
            CreatedDate: "2025-03-01T00:00:00.000+0000",
          },
        ],
      });
    }
    return jsonResponse({
      totalSize: 3,
      done: false,
      nextRecordsUrl: NEXT,
      records: [
        {
          attributes: { type: "Contact", url: "/services/data/v60.0/sobjects/Contact/003A" },
          Id: "003A",
          Email: "ann.lee@example.com",
          Phone: null,
          FirstName: "Ann",
          LastName: "Lee-Smith",
        },
        {
          attributes: { type: "Contact", url: "/services/data/v60.0/sobjects/Contact/003B" },
          Id: "003B",
          Email: "eli@example.com",
          Phone: "+44 20 7946 0958",
          FirstName: "Eli",
          LastName: null,
        },
      ],
    });
  });

beforeAll(async () => {
  w = await createWorld();
  const hs = await w.as("tenantAdmin").post("/v1/integrations", {
    connectorType: "hubspot",
    name: "HubSpot",
    isSandbox: true,
    config: { apiBaseUrl: "https://hubspot.stand-in.test" },
    credentials: { accessToken: "hs-private-app-token" },
  });
  expect(hs.status, JSON.stringify(hs.body)).toBe(201);
  hubspotId = hs.body.id;
  const sf = await w.as("tenantAdmin").post("/v1/integrations", {
    connectorType: "salesforce",
    name: "Salesforce",
    isSandbox: true,
    config: { instanceUrl: "https://acme.my.salesforce.com", apiBaseUrl: "https://salesforce.stand-in.test" },
    credentials: { accessToken: "sf-token" },
  });
  expect(sf.status, JSON.stringify(sf.body)).toBe(201);
  salesforceId = sf.body.id;
});
afterAll(() => setJobsFetch());

const contactByEmail = (email: string) =>
  db()
    .select()
    .from(contacts)
    .where(and(eq(contacts.tenantId, w.tenantA.id), eq(contacts.email, email)))
    .get();
const job = async (id: string) => (await db().select().from(backgroundJobs).where(eq(backgroundJobs.id, id)).get())!;

async function queuedJob(integrationId: string) {
  const now = new Date().toISOString();
  const row = {
    id: `job_${newId()}`,
    tenantId: w.tenantA.id,
    type: "crm_import" as const,
    status: "queued" as const,
    subjectId: integrationId,
    counts: {},
    cursor: null,
    error: null,
    createdByUserId: null,
    startedAt: null,
    finishedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await db().insert(backgroundJobs).values(row);
  return { type: "crm_import" as const, tenantId: w.tenantA.id, jobId: row.id };
}

describe("CRM integrations", () => {
  it("accepts hubspot and salesforce with their required settings, and google_business_profile as google", async () => {
    const a = w.as("tenantAdmin");
    const noToken = await a.post("/v1/integrations", { connectorType: "hubspot", name: "HS" });
    expect(noToken.body.details.issues).toEqual([{ path: "credentials.accessToken", message: "Required for hubspot" }]);
    const noInstance = await a.post("/v1/integrations", {
      connectorType: "salesforce",
      name: "SF",
      credentials: { accessToken: "t" },
    });
    expect(noInstance.body.details.issues).toEqual([
      { path: "config.instanceUrl", message: "Required for salesforce" },
    ]);
    const foreign = await a.post("/v1/integrations", {
      connectorType: "salesforce",
      name: "SF",
      config: { instanceUrl: "https://evil.example.com" },
      credentials: { accessToken: "t" },
    });
    expect(foreign.body.details.issues[0].path).toBe("config.instanceUrl");
    const overrideNotSandbox = await a.post("/v1/integrations", {
      connectorType: "hubspot",
      name: "HS",
      config: { apiBaseUrl: "https://x.test" },
      credentials: { accessToken: "t" },
    });
    expect(overrideNotSandbox.body.details.issues[0].path).toBe("config.apiBaseUrl");
    const loc = await newLocation(w);
    const gbp = await a.post("/v1/integrations", {
      connectorType: "google_business_profile",
      name: "GBP",
      locationId: loc.id,
      config: { accountId: "1", locationId: "2" },
      credentials: { accessToken: "g" },
    });
    expect(gbp.status).toBe(201);
    expect(gbp.body.connectorType).toBe("google");
    const hs = await w.as("viewer").get(`/v1/integrations/${hubspotId}`);
    expect(hs.body).toMatchObject({ connectorType: "hubspot", hasCredentials: true, locationId: null });
    expect(JSON.stringify(hs.body)).not.toContain("hs-private-app-token");
  });

  it("tests a connection with one authenticated read; a refusal is ok false with the provider's answer", async () => {
    const site = hubspot();
    const ok = await testIntegration(ctxFor(w.tenantA.id, w.users.tenantAdmin.id), hubspotId, site.fetch);
    expect(ok).toMatchObject({ ok: true, connectorType: "hubspot", upstreamStatus: null, message: "Connected" });
    expect(`${site.calls[0]!.url.origin}${site.calls[0]!.url.pathname}`).toBe(
      "https://hubspot.stand-in.test/crm/v3/objects/contacts",
    );
    expect(site.calls[0]!.url.searchParams.get("limit")).toBe("1");

    const refused = await testIntegration(
      ctxFor(w.tenantA.id, w.users.tenantAdmin.id),
      hubspotId,
      standIn(() => jsonResponse({ message: "Authentication credentials not found." }, 401)).fetch,
    );
    expect(refused).toMatchObject({
      ok: false,
      upstreamStatus: 401,
      message: expect.stringContaining("Authentication credentials not found."),
    });

    const sf = salesforce();
    expect(await testIntegration(ctxFor(w.tenantA.id, w.users.tenantAdmin.id), salesforceId, sf.fetch)).toMatchObject({
      ok: true,
    });
    expect(sf.calls[0]!.url.searchParams.get("q")).toBe("SELECT Id FROM Contact LIMIT 1");

    expect((await w.as("manager").post(`/v1/integrations/${hubspotId}/test`)).status).toBe(403);
    expect((await w.as("tenantBAdmin").post(`/v1/integrations/${hubspotId}/test`)).status).toBe(404);
  });

  it("imports HubSpot contacts through the queue, two pages, and reports the job", async () => {
    const site = hubspot();
    setJobsFetch(site.fetch);
    const res = await w.as("tenantUser").post(`/v1/contacts/import/crm/${hubspotId}`);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ jobId: expect.stringMatching(/^job_/), status: "queued" });
    const deadline = Date.now() + 10_000;
    let status = await w.as("viewer").get(`/v1/jobs/${res.body.jobId}`);
    while (!["succeeded", "failed"].includes(status.body.status) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      status = await w.as("viewer").get(`/v1/jobs/${res.body.jobId}`);
    }
    setJobsFetch();
    expect(status.body).toMatchObject({
      id: res.body.jobId,
      type: "crm_import",
      status: "succeeded",
      subjectId: hubspotId,
      error: null,
      counts: { pages: 2, fetched: 4, imported: 3, created: 3, updated: 0, skipped: 1 },
    });
    expect(status.body.startedAt).not.toBeNull();
    expect(status.body.finishedAt).not.toBeNull();

    expect(site.calls).toHaveLength(2);
    const [p1, p2] = site.calls;
    expect(`${p1!.url.origin}${p1!.url.pathname}`).toBe("https://hubspot.stand-in.test/crm/v3/objects/contacts");
    expect(Object.fromEntries(p1!.url.searchParams)).toEqual({
      limit: "100",
      properties: "email,phone,firstname,lastname",
    });
    expect(p2!.url.searchParams.get("after")).toBe("103");
    expect(p1!.headers.get("authorization")).toBe("Bearer hs-private-app-token");

    const ann = await contactByEmail("ann.lee@example.com");
    expect(ann).toMatchObject({
      firstName: "Ann",
      lastName: "Lee",
      phone: "+14155550101",
      externalIds: { hubspot: "101" },
    });
    expect(ann!.sourceMetadata).toMatchObject({
      hubspot: { id: "101", integrationId: hubspotId, jobId: res.body.jobId, createdAt: "2025-01-01T00:00:00Z" },
    });
    const bo = await db()
      .select()
      .from(contacts)
      .where(and(eq(contacts.tenantId, w.tenantA.id), eq(contacts.phone, "+14155550102")))
      .get();
    expect(bo).toMatchObject({ firstName: "Bo", email: null, externalIds: { hubspot: "102" } });
    // an unusable phone does not lose a person with a valid email
    expect(await contactByEmail("cy@example.com")).toMatchObject({ phone: null, externalIds: { hubspot: "104" } });

    const integration = await db().select().from(integrations).where(eq(integrations.id, hubspotId)).get();
    expect(integration).toMatchObject({ lastSyncAt: status.body.startedAt, lastSyncStatus: "ok" });
    const audits = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, res.body.jobId)));
    expect(audits.map((a) => a.action).sort()).toEqual([
      "contact.crm_import_requested",
      "contact.imported",
      "contact.imported",
    ]);
    expect(JSON.stringify(audits)).not.toContain("ann.lee@example.com");
  });

  it("imports Salesforce contacts by following nextRecordsUrl, merging into existing contacts", async () => {
    const site = salesforce();
    const msg = await queuedJob(salesforceId);
    expect(await runCrmImport(env, msg, 1, site.fetch)).toEqual({ kind: "done" });
    expect(site.calls).toHaveLength(2);
    expect(`${site.calls[0]!.url.origin}${site.calls[0]!.url.pathname}`).toBe(
      "https://salesforce.stand-in.test/services/data/v60.0/query",
    );
    expect(site.calls[0]!.url.searchParams.get("q")).toBe(
      "SELECT Id, Email, Phone, FirstName, LastName, CreatedDate, LastModifiedDate FROM Contact ORDER BY CreatedDate, Id",
    );
    expect(site.calls[1]!.url.pathname).toBe(NEXT);
    expect(site.calls[1]!.headers.get("authorization")).toBe("Bearer sf-token");

    expect(await job(msg.jobId)).toMatchObject({
      status: "succeeded",
      counts: { pages: 2, fetched: 3, imported: 3, created: 2, updated: 1, skipped: 0 },
    });
    const ann = await contactByEmail("ann.lee@example.com");
    // matched on email: both CRMs' ids are kept, the newer name wins
    expect(ann).toMatchObject({ lastName: "Lee-Smith", externalIds: { hubspot: "101", salesforce: "003A" } });
    expect(Object.keys(ann!.sourceMetadata).sort()).toEqual(["hubspot", "salesforce"]);
    expect(await contactByEmail("eli@example.com")).toMatchObject({
      phone: "+442079460958",
      externalIds: { salesforce: "003B" },
    });
    expect(await contactByEmail("dee@example.com")).toMatchObject({
      firstName: "Dee",
      externalIds: { salesforce: "003C" },
    });
    // a redelivered message of a finished job does nothing
    expect(await runCrmImport(env, msg, 2, site.fetch)).toEqual({ kind: "skipped" });
    expect(site.calls).toHaveLength(2);
  });

  it("retries a rate-limited page after Retry-After, resumes from the stored cursor, and fails on a refused token", async () => {
    let limited = true;
    const flaky = standIn((call: Call) => {
      if (call.url.searchParams.get("after") === "103" && limited)
        return jsonResponse({ status: "error", message: "You have reached your secondly limit." }, 429, {
          "retry-after": "7",
        });
      return jsonResponse(hubspotPages[call.url.searchParams.get("after") ?? "first"]);
    });
    const msg = await queuedJob(hubspotId);
    expect(await runCrmImport(env, msg, 1, flaky.fetch)).toEqual({ kind: "retry", delaySeconds: 7 });
    expect(await job(msg.jobId)).toMatchObject({ status: "running", cursor: "103", counts: { pages: 1, fetched: 3 } });
    expect((await db().select().from(integrations).where(eq(integrations.id, hubspotId)).get())!.lastSyncStatus).toBe(
      "rate_limited",
    );
    limited = false;
    expect(await runCrmImport(env, msg, 2, flaky.fetch)).toEqual({ kind: "done" });
    expect(flaky.calls.map((c) => c.url.searchParams.get("after"))).toEqual([null, "103", "103"]);
    expect(await job(msg.jobId)).toMatchObject({
      status: "succeeded",
      counts: { pages: 2, fetched: 4, imported: 3, created: 0, updated: 3, skipped: 1 },
    });

    const expired = await queuedJob(salesforceId);
    expect(
      await runCrmImport(
        env,
        expired,
        1,
        standIn(() => jsonResponse([{ message: "Session expired or invalid", errorCode: "INVALID_SESSION_ID" }], 401))
          .fetch,
      ),
    ).toEqual({ kind: "done" });
    expect(await job(expired.jobId)).toMatchObject({
      status: "failed",
      error: expect.stringContaining("salesforce answered 401"),
    });
  });

  it("refuses imports from other tenants' or non-CRM integrations, and hides other tenants' jobs", async () => {
    const loc = await newLocation(w);
    const yelp = await w.as("tenantAdmin").post("/v1/integrations", {
      connectorType: "yelp",
      name: "Yelp",
      locationId: loc.id,
      config: { businessId: "b" },
      credentials: { apiKey: "k" },
    });
    const notCrm = await w.as("tenantUser").post(`/v1/contacts/import/crm/${yelp.body.id}`);
    expect(notCrm.status).toBe(400);
    expect(notCrm.body.details.issues[0].path).toBe("integrationId");
    expect((await w.as("viewer").post(`/v1/contacts/import/crm/${hubspotId}`)).status).toBe(403);
    expect((await w.as("tenantBAdmin").post(`/v1/contacts/import/crm/${hubspotId}`)).status).toBe(404);
    const msg = await queuedJob(hubspotId);
    expect((await w.as("tenantBAdmin").get(`/v1/jobs/${msg.jobId}`)).status).toBe(404);
    expect((await w.as("viewer").get(`/v1/jobs/${msg.jobId}`)).body).toMatchObject({
      status: "queued",
      type: "crm_import",
    });
    await db().delete(backgroundJobs).where(eq(backgroundJobs.id, msg.jobId));
    await w.as("tenantAdmin").patch(`/v1/integrations/${hubspotId}`, { isEnabled: false });
    expect((await w.as("tenantUser").post(`/v1/contacts/import/crm/${hubspotId}`)).status).toBe(409);
  });
});
