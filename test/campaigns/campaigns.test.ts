import { beforeAll, describe, expect, it } from "vitest";
import { createCampaign } from "../../src/modules/campaigns/service";
import { createWorld, seedTenant, type World } from "../helpers/seed";
import { auditOf, tenantCtx } from "./support";

let w: World;
let locationId: string;
let bCampaignId: string;
let bLocationId: string;
let bBrandId: string;

const base = { name: "Post-visit ask", type: "event_triggered", channels: ["email", "sms"] };

beforeAll(async () => {
  w = await createWorld();
  locationId = (await w.as("manager").post("/v1/locations", { name: "Downtown" })).body.id;
  bLocationId = (await w.as("tenantBAdmin").post("/v1/locations", { name: "B downtown" })).body.id;
  bBrandId = w.tenantB.brandId;
  bCampaignId = (await w.as("tenantBAdmin").post("/v1/campaigns", base)).body.id;
});

describe("campaigns", () => {
  it("creates an active campaign with defaults", async () => {
    const res = await w.as("manager").post("/v1/campaigns", {
      ...base,
      locationId,
      brandId: w.tenantA.brandId,
      startsAt: "2026-03-01T09:00:00+01:00",
      endsAt: "2026-04-01T00:00:00Z",
      metadata: { source: "pos" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      tenantId: w.tenantA.id,
      name: "Post-visit ask",
      type: "event_triggered",
      channels: ["email", "sms"],
      isActive: true,
      locationId,
      brandId: w.tenantA.brandId,
      startsAt: "2026-03-01T08:00:00.000Z",
      endsAt: "2026-04-01T00:00:00.000Z",
      metadata: { source: "pos" },
      reviewDestination: "auto",
    });
    expect((await w.as("viewer").get(`/v1/campaigns/${res.body.id}`)).body).toEqual(res.body);
    expect((await auditOf(res.body.id, "campaign.created"))[0]).toMatchObject({
      actorId: w.users.manager.id,
      tenantId: w.tenantA.id,
    });
  });

  it("validates enums, channels and dates", async () => {
    const bad = await w
      .as("manager")
      .post("/v1/campaigns", { name: "x", type: "weekly", channels: [], reviewDestination: "tripadvisor" });
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      "channels",
      "reviewDestination",
      "type",
    ]);
    const dup = await w.as("manager").post("/v1/campaigns", { ...base, channels: ["sms", "sms"] });
    expect(dup.body.details.issues[0]).toMatchObject({ path: "channels", message: "Channels must not repeat" });
    const order = await w
      .as("manager")
      .post("/v1/campaigns", { ...base, startsAt: "2026-05-01T00:00:00Z", endsAt: "2026-04-01T00:00:00Z" });
    expect(order.status).toBe(400);
    expect(order.body.details.issues).toEqual([{ path: "endsAt", message: "endsAt must be after startsAt" }]);
    expect((await w.as("manager").post("/v1/campaigns", { ...base, startsAt: "tomorrow" })).status).toBe(400);
  });

  it("refuses another tenant's location or brand with 400, and a location of another brand", async () => {
    const res = await w.as("manager").post("/v1/campaigns", { ...base, locationId: bLocationId, brandId: bBrandId });
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([
      { path: "locationId", message: "Unknown location" },
      { path: "brandId", message: "Unknown brand" },
    ]);
    const brand = (await w.as("tenantAdmin").post("/v1/brands", { name: "Second brand" })).body.id;
    const mismatch = await w.as("manager").post("/v1/campaigns", { ...base, locationId, brandId: brand });
    expect(mismatch.body.details.issues).toEqual([
      { path: "brandId", message: "The location belongs to another brand" },
    ]);
  });

  it("patches and re-validates the merged dates", async () => {
    const id = (await w.as("manager").post("/v1/campaigns", { ...base, startsAt: "2026-01-01T00:00:00Z" })).body.id;
    const res = await w.as("manager").patch(`/v1/campaigns/${id}`, {
      name: "Renamed",
      channels: ["whatsapp"],
      reviewDestination: "google",
      endsAt: "2026-02-01T00:00:00Z",
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: "Renamed",
      channels: ["whatsapp"],
      reviewDestination: "google",
      startsAt: "2026-01-01T00:00:00.000Z",
      endsAt: "2026-02-01T00:00:00.000Z",
    });
    const bad = await w.as("manager").patch(`/v1/campaigns/${id}`, { startsAt: "2026-03-01T00:00:00Z" });
    expect(bad.status).toBe(400);
    expect((await w.as("manager").patch(`/v1/campaigns/${id}`, { startsAt: null })).body.startsAt).toBeNull();
    expect((await auditOf(id, "campaign.updated"))[0]).toMatchObject({
      previousState: expect.objectContaining({ name: "Post-visit ask" }),
      nextState: expect.objectContaining({ name: "Renamed" }),
    });
  });

  it("activates and deactivates from any state", async () => {
    const id = (await w.as("manager").post("/v1/campaigns", base)).body.id;
    expect((await w.as("manager").post(`/v1/campaigns/${id}/deactivate`)).body.isActive).toBe(false);
    expect((await w.as("manager").post(`/v1/campaigns/${id}/deactivate`)).body.isActive).toBe(false);
    expect((await w.as("manager").post(`/v1/campaigns/${id}/activate`)).body.isActive).toBe(true);
    expect((await auditOf(id)).map((a) => a.action)).toEqual([
      "campaign.created",
      "campaign.deactivated",
      "campaign.activated",
    ]);
  });

  it("lists newest first with filters and cursor paging", async () => {
    const page1 = await w.as("viewer").get(`/v1/campaigns?locationId=${locationId}&limit=1`);
    expect(page1.body.data).toHaveLength(1);
    expect(page1.body.data[0].locationId).toBe(locationId);
    const all = await w.as("viewer").get("/v1/campaigns?limit=2");
    expect(all.body.total).toBeGreaterThan(2);
    const next = await w.as("viewer").get(`/v1/campaigns?limit=2&cursor=${all.body.pageInfo.endCursor}`);
    expect(next.body.data[0].id).not.toBe(all.body.data[1].id);
    expect(next.body.data[0].createdAt <= all.body.data[1].createdAt).toBe(true);
    const inactive = await w.as("viewer").get("/v1/campaigns?isActive=false");
    expect(inactive.body.data.every((c: { isActive: boolean }) => !c.isActive)).toBe(true);
  });

  it("needs manager to write", async () => {
    expect((await w.as("tenantUser").post("/v1/campaigns", base)).status).toBe(403);
    expect((await w.as("viewer").post(`/v1/campaigns/${bCampaignId}/activate`)).status).toBe(403);
  });

  it("treats another tenant's campaign as not found", async () => {
    const a = w.as("tenantAdmin");
    const statuses = await Promise.all([
      a.get(`/v1/campaigns/${bCampaignId}`),
      a.patch(`/v1/campaigns/${bCampaignId}`, { name: "x" }),
      a.post(`/v1/campaigns/${bCampaignId}/activate`),
      a.post(`/v1/campaigns/${bCampaignId}/deactivate`),
      a.get(`/v1/campaigns/${bCampaignId}/templates`),
      a.post(`/v1/campaigns/${bCampaignId}/templates`, { templateId: "x", channel: "email" }),
      a.delete(`/v1/campaigns/${bCampaignId}/templates/x`),
      a.get(`/v1/campaigns/${bCampaignId}/sequence`),
      a.put(`/v1/campaigns/${bCampaignId}/sequence`, { steps: [{ stepIndex: 0, channel: "email", delayDays: 0 }] }),
      a.delete(`/v1/campaigns/${bCampaignId}/sequence`),
    ]);
    expect(statuses.map((r) => r.status)).toEqual(Array(10).fill(404));
  });
});

describe("agency service functions", () => {
  it("createCampaign works in the given tenant", async () => {
    const other = await seedTenant({ name: "Other tenant" });
    const created = await createCampaign(tenantCtx(other.id), {
      name: "Agency made",
      type: "one_time",
      channels: ["email"],
    });
    expect(created).toMatchObject({
      tenantId: other.id,
      name: "Agency made",
      isActive: true,
      reviewDestination: "auto",
    });
    expect((await auditOf(created.id, "campaign.created"))[0]).toMatchObject({
      tenantId: other.id,
      actorType: "system",
    });

    // listing across tenants: test/agency/agency-campaigns.test.ts
  });
});
