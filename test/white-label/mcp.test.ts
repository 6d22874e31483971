import { beforeAll, describe, expect, it } from "vitest";
import { forgetWhiteLabels } from "../../src/modules/white-label/resolve";
import { createWorld, type World } from "../helpers/seed";
import { connect, mintTestKey, structured } from "../mcp/helpers";

let w: World;
beforeAll(async () => {
  w = await createWorld();
  await w
    .as("agencyAdmin")
    .put(`/agency/agencies/${w.agencyA.id}/branding`, { name: "Northwind Reviews", primaryColor: "#0f766e" });
  await w.as("tenantAdmin").put("/v1/branding", { supportEmail: "care@acme.test" });
  forgetWhiteLabels();
});

describe("white-label.get (MCP)", () => {
  it("returns the caller's tenant's effective brand, override, agency brand and link origin", async () => {
    const { client } = await connect({ token: mintTestKey(w.tenantA.id, ["read:locations"]).token });
    const res = structured(await client.callTool({ name: "white-label.get", arguments: {} }));
    expect(res.effective).toEqual({
      name: "Northwind Reviews",
      logoUrl: null,
      primaryColor: "#0f766e",
      accentColor: null,
      supportEmail: "care@acme.test",
      source: "tenant",
    });
    expect(res.override).toMatchObject({ scope: "tenant", scopeId: w.tenantA.id, supportEmail: "care@acme.test" });
    expect(res.agency).toMatchObject({ scope: "agency", scopeId: w.agencyA.id, name: "Northwind Reviews" });
    expect(res.publicBaseUrl).toBe("http://localhost:8787");
    const b = await connect({ token: mintTestKey(w.tenantB.id, ["read:locations"]).token });
    expect(structured(await b.client.callTool({ name: "white-label.get", arguments: {} })).effective.source).toBe(
      "default",
    );
  });

  it("is not offered without read:locations", async () => {
    const { client } = await connect({ token: mintTestKey(w.tenantA.id, ["read:reviews"]).token });
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("white-label.get");
  });
});
