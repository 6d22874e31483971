import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, integrations } from "../../src/db/schema";
import { createWorld, db, type World } from "../helpers/seed";
import { newLocation } from "../reviews/helpers";

let w: World;
let loc: { id: string };
let locB: { id: string };

beforeAll(async () => {
  w = await createWorld();
  loc = await newLocation(w);
  locB = await newLocation(w, "tenantBAdmin");
});

const google = (extra: Record<string, unknown> = {}) => ({
  connectorType: "google",
  name: "Google Downtown",
  locationId: loc.id,
  config: { accountId: "111", locationId: "222" },
  credentials: { accessToken: "ya29.secret-token" },
  ...extra,
});

describe("/v1/integrations", () => {
  it("creates with credentials encrypted at rest and never returned", async () => {
    const res = await w.as("tenantAdmin").post("/v1/integrations", google());
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      tenantId: w.tenantA.id,
      connectorType: "google",
      name: "Google Downtown",
      locationId: loc.id,
      isEnabled: true,
      isSandbox: false,
      config: { accountId: "111", locationId: "222" },
      hasCredentials: true,
      lastSyncAt: null,
      lastSyncStatus: null,
    });
    expect(res.text).not.toContain("ya29");
    const [row] = await db().select().from(integrations).where(eq(integrations.id, res.body.id));
    expect(row!.credentialsEncrypted).toMatch(/^v1\./);
    expect(row!.credentialsEncrypted).not.toContain("ya29");
    const [audit] = await db().select().from(auditEvents).where(eq(auditEvents.resourceId, res.body.id));
    expect(audit).toMatchObject({ action: "integration.created", actorId: w.users.tenantAdmin.id });
    expect(JSON.stringify(audit)).not.toContain("ya29");
    expect(JSON.stringify(audit)).not.toContain("v1.");
    const got = await w.as("viewer").get(`/v1/integrations/${res.body.id}`);
    expect(got.body).toEqual(res.body);
    expect((await w.as("viewer").get("/v1/integrations")).body.data.map((i: { id: string }) => i.id)).toContain(
      res.body.id,
    );
  });

  it("checks each site's required ids and secrets, the location, and base URL overrides", async () => {
    const missing = await w
      .as("tenantAdmin")
      .post("/v1/integrations", { connectorType: "trustpilot", name: "TP", locationId: loc.id, config: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      "config.businessUnitId",
      "credentials.accessToken",
    ]);
    const noLoc = await w.as("tenantAdmin").post("/v1/integrations", google({ locationId: undefined }));
    expect(noLoc.body.details.issues).toEqual([{ path: "locationId", message: "Required for google" }]);
    const foreignLoc = await w.as("tenantAdmin").post("/v1/integrations", google({ locationId: locB.id }));
    expect(foreignLoc.body.details.issues).toEqual([{ path: "locationId", message: "Unknown location" }]);
    const override = await w
      .as("tenantAdmin")
      .post(
        "/v1/integrations",
        google({ config: { accountId: "1", locationId: "2", apiBaseUrl: "http://stand-in.test" } }),
      );
    expect(override.body.details.issues).toEqual([
      { path: "config.apiBaseUrl", message: "Only sandbox integrations may override the API base URL" },
    ]);
    const sandbox = await w
      .as("tenantAdmin")
      .post(
        "/v1/integrations",
        google({ isSandbox: true, config: { accountId: "1", locationId: "2", apiBaseUrl: "http://stand-in.test" } }),
      );
    expect(sandbox.status).toBe(201);
    const unknown = await w.as("tenantAdmin").post("/v1/integrations", { ...google(), connectorType: "myspace" });
    expect(unknown.body.details.issues[0].path).toBe("connectorType");
  });

  it("updates, replaces credentials write-only, and deletes (tenant_admin only)", async () => {
    const created = (await w.as("tenantAdmin").post("/v1/integrations", google())).body;
    expect((await w.as("manager").patch(`/v1/integrations/${created.id}`, { name: "x" })).status).toBe(403);
    expect((await w.as("manager").post("/v1/integrations", google())).status).toBe(403);
    const [before] = await db().select().from(integrations).where(eq(integrations.id, created.id));
    const updated = await w.as("tenantAdmin").patch(`/v1/integrations/${created.id}`, {
      name: "Renamed",
      isEnabled: false,
      credentials: { accessToken: "new-token" },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: "Renamed", isEnabled: false, hasCredentials: true });
    const [after] = await db().select().from(integrations).where(eq(integrations.id, created.id));
    expect(after!.credentialsEncrypted).not.toBe(before!.credentialsEncrypted);
    expect(
      (await w.as("tenantAdmin").patch(`/v1/integrations/${created.id}`, { config: { accountId: "only" } })).body
        .details.issues,
    ).toEqual([{ path: "config.locationId", message: "Required for google" }]);
    expect((await w.as("manager").delete(`/v1/integrations/${created.id}`)).status).toBe(403);
    expect((await w.as("tenantAdmin").delete(`/v1/integrations/${created.id}`)).status).toBe(204);
    expect((await w.as("viewer").get(`/v1/integrations/${created.id}`)).status).toBe(404);
    const audit = await db().select().from(auditEvents).where(eq(auditEvents.resourceId, created.id));
    expect(audit.map((a) => a.action).sort()).toEqual([
      "integration.created",
      "integration.deleted",
      "integration.updated",
    ]);
  });

  it("another tenant's integration id is 404", async () => {
    const created = (await w.as("tenantAdmin").post("/v1/integrations", google())).body;
    const b = w.as("tenantBAdmin");
    expect((await b.get(`/v1/integrations/${created.id}`)).status).toBe(404);
    expect((await b.patch(`/v1/integrations/${created.id}`, { name: "x" })).status).toBe(404);
    expect((await b.delete(`/v1/integrations/${created.id}`)).status).toBe(404);
    expect((await b.get("/v1/integrations")).body.total).toBe(0);
  });
});
