import { beforeAll, describe, expect, it } from "vitest";
import { createWorld, type World } from "../helpers/seed";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

describe("brands", () => {
  let id = "";

  it("creates a brand with a slug derived from the name", async () => {
    const res = await w.as("tenantAdmin").post("/v1/brands", {
      name: "Café Olé Group",
      brandVoice: "friendly",
      brandTone: "warm",
      logoUrl: "https://cdn.example.com/logo.png",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      tenantId: w.tenantA.id,
      name: "Café Olé Group",
      slug: "cafe-ole-group",
      brandVoice: "friendly",
      brandTone: "warm",
      logoUrl: "https://cdn.example.com/logo.png",
      isActive: true,
      yelpUrl: null,
    });
    id = res.body.id;
  });

  it("refuses a second brand with the same slug in the tenant (409) but allows it in another tenant", async () => {
    const dup = await w.as("tenantAdmin").post("/v1/brands", { name: "Cafe Ole Group" });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({
      error: "A brand with slug 'cafe-ole-group' already exists in this tenant",
      code: "CONFLICT",
    });
    const other = await w.as("tenantBAdmin").post("/v1/brands", { name: "Cafe Ole Group" });
    expect(other.status).toBe(201);
  });

  it("needs tenant_admin to write (a manager gets 403)", async () => {
    const res = await w.as("manager").post("/v1/brands", { name: "Nope" });
    expect(res.status).toBe(403);
    expect((await w.as("manager").patch(`/v1/brands/${id}`, { name: "Nope" })).status).toBe(403);
  });

  it("rejects a non-http logo URL", async () => {
    const res = await w.as("tenantAdmin").patch(`/v1/brands/${id}`, { logoUrl: "javascript:alert(1)" });
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0].path).toBe("logoUrl");
  });

  it("patches and lists, default brand first created", async () => {
    const patched = await w
      .as("tenantAdmin")
      .patch(`/v1/brands/${id}`, { brandDescription: "Coffee since 1990", isActive: false });
    expect(patched.body).toMatchObject({
      brandDescription: "Coffee since 1990",
      isActive: false,
      name: "Café Olé Group",
    });
    const list = await w.as("viewer").get("/v1/brands");
    expect(list.body.total).toBe(2);
    expect(list.body.data.map((b: { slug: string }) => b.slug)).toEqual(["cafe-ole-group", "default"]);
    const active = await w.as("viewer").get("/v1/brands?isActive=true");
    expect(active.body.data.map((b: { slug: string }) => b.slug)).toEqual(["default"]);
  });

  it("404s tenant A's brand from tenant B", async () => {
    expect((await w.as("tenantBAdmin").get(`/v1/brands/${id}`)).status).toBe(404);
    expect((await w.as("tenantBAdmin").patch(`/v1/brands/${id}`, { name: "x" })).status).toBe(404);
  });
});
