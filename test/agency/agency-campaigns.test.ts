import { beforeAll, describe, expect, it } from "vitest";
import { createWorld, seedTenant, type World } from "../helpers/seed";

let w: World;
let ownedSecond: Awaited<ReturnType<typeof seedTenant>>;
beforeAll(async () => {
  w = await createWorld();
  ownedSecond = await seedTenant({ agencyId: w.agencyA.id, name: "Second owned" });
});

const body = { name: "Spring push", type: "one_time", channels: ["email", "sms"], reviewDestination: "google" };

describe("agency campaigns", () => {
  let createdId = "";

  it("creates a campaign in an owned tenant through the same service as /v1/campaigns", async () => {
    const res = await w.as("agencyAdmin").post(`/agency/tenants/${w.tenantA.id}/campaigns`, body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      tenantId: w.tenantA.id,
      name: "Spring push",
      type: "one_time",
      channels: ["email", "sms"],
      reviewDestination: "google",
      isActive: true,
    });
    createdId = res.body.id;
    const seen = await w.as("viewer").get(`/v1/campaigns/${createdId}`);
    expect(seen.body.name).toBe("Spring push");
  });

  it("validates the body like /v1/campaigns", async () => {
    const res = await w.as("agencyAdmin").post(`/agency/tenants/${w.tenantA.id}/campaigns`, { ...body, channels: [] });
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0].path).toBe("channels");
  });

  it("is 404 for a tenant of another agency and 403 for tenant roles", async () => {
    const foreign = await w.as("otherAgencyAdmin").post(`/agency/tenants/${w.tenantA.id}/campaigns`, body);
    expect(foreign.status).toBe(404);
    const tenantRole = await w.as("tenantAdmin").post(`/agency/tenants/${w.tenantA.id}/campaigns`, body);
    expect(tenantRole.status).toBe(403);
  });

  it("lists campaigns across owned tenants with their tenant, and filters by an owned tenant", async () => {
    await w
      .as("agencyAdmin")
      .post(`/agency/tenants/${ownedSecond.id}/campaigns`, { ...body, name: "Second tenant push" });
    await w.as("tenantBAdmin").post("/v1/campaigns", { ...body, name: "Not ours" });
    const all = await w.as("agencyAdmin").get("/agency/campaigns");
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(2);
    expect(all.body.data.map((c: { name: string; tenant: unknown }) => [c.name, c.tenant])).toEqual([
      ["Second tenant push", { id: ownedSecond.id, name: "Second owned", slug: ownedSecond.slug }],
      ["Spring push", { id: w.tenantA.id, name: w.tenantA.name, slug: w.tenantA.slug }],
    ]);
    const one = await w.as("agencyAdmin").get(`/agency/campaigns?tenantId=${w.tenantA.id}`);
    expect(one.body.data.map((c: { id: string }) => c.id)).toEqual([createdId]);
    expect((await w.as("agencyAdmin").get(`/agency/campaigns?tenantId=${w.tenantB.id}`)).status).toBe(404);
  });

  it("lets a platform admin see every agency's campaigns", async () => {
    const res = await w.as("platformAdmin").get("/agency/campaigns?limit=200");
    expect(res.body.data.map((c: { name: string }) => c.name)).toEqual(
      expect.arrayContaining(["Spring push", "Second tenant push", "Not ours"]),
    );
  });
});
