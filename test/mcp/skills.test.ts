import { z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "../../src/db/schema";
import { boundingBox, haversineKm } from "../../src/modules/locations/finder";
import { registerSkills, skill } from "../../src/modules/mcp/skills/registry";
import { createWorld, db, type World } from "../helpers/seed";
import { connect, fetchWithEnv, mintTestKey, rawPost, structured } from "./helpers";

// test-only skills: a write skill (refused without its scope or role), a slow one and a huge one
registerSkills([
  skill({
    name: "test.write",
    title: "Test write",
    description: "test only",
    input: z.object({ secretToken: z.string().optional(), n: z.number().optional() }),
    scopes: ["write:contacts"],
    access: "write",
    destructive: true,
    minRole: "tenant_user",
    handler: async (ctx) => ({ tenantId: ctx.tenantId, actor: ctx.actor }),
  }),
]);
registerSkills([
  skill({
    name: "test.slow",
    title: "Test slow",
    description: "test only",
    input: z.object({}),
    scopes: ["read:locations"],
    access: "read",
    handler: () => new Promise((resolve) => setTimeout(() => resolve({ late: true }), 500)),
  }),
]);
registerSkills([
  skill({
    name: "test.huge",
    title: "Test huge",
    description: "test only",
    input: z.object({}),
    scopes: ["read:locations"],
    access: "read",
    handler: async () => ({ blob: "x".repeat(5000) }),
  }),
]);

let w: World;
const SPRINGFIELD = { lat: 39.7817, lng: -89.6501 };

beforeAll(async () => {
  w = await createWorld();
  const mk = (body: Record<string, unknown>, as: "manager" | "tenantBAdmin" = "manager") =>
    w.as(as).post("/v1/locations", body);
  await mk({
    name: "Downtown Clinic",
    city: "Springfield",
    state: "IL",
    postalCode: "62701",
    latitude: 39.7817,
    longitude: -89.6501,
  });
  await mk({ name: "Chatham Office", city: "Chatham", state: "IL", latitude: 39.6761, longitude: -89.7043 }); // ~12.6 km
  await mk({ name: "Chicago Loop", city: "Chicago", state: "IL", latitude: 41.8781, longitude: -87.6298 }); // ~290 km
  await mk({ name: "No Coordinates Store", city: "Springfield", state: "IL" });
  const closed = await mk({ name: "Closed Springfield", city: "Springfield", latitude: 39.78, longitude: -89.65 });
  await w.as("manager").patch(`/v1/locations/${closed.body.id}`, { isActive: false });
  await mk(
    { name: "Tenant B Springfield", city: "Springfield", latitude: 39.7817, longitude: -89.6501 },
    "tenantBAdmin",
  );
});

describe("tools/list by scope", () => {
  it("a key shows only the tools its scopes allow", async () => {
    const reviews = await connect({ token: mintTestKey(w.tenantA.id, ["read:reviews"]).token });
    const reviewTools = (await reviews.client.listTools()).tools.map((t) => t.name);
    expect(reviewTools).toContain("review.list");
    // read:reviews opens the review tools, the inbox's reviews and the SLA's overdue reviews, nothing else
    expect(reviewTools.filter((n) => !/^(review|inbox|sla)\./.test(n))).toEqual([]);
    const loc = await connect({ token: mintTestKey(w.tenantA.id, ["read:locations"]).token });
    const names = (await loc.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("location.list");
    expect(names).not.toContain("test.write");
    expect(names).not.toContain("agency.list-tenants");
  });

  it("a tool outside the scopes is refused when called anyway, and audited", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    const { client } = await connect({ token: key.token });
    const res = await client.callTool({ name: "test.write", arguments: { n: 1 } });
    expect(res.isError).toBe(true);
    expect((res.content as any)[0].text).toContain("write:contacts");
    const row = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.actorId, key.keyId), eq(auditEvents.resourceId, "test.write")))
      .get();
    expect(row?.metadata).toMatchObject({ outcome: "forbidden", apiKeyId: key.keyId, tool: "test.write" });
  });

  it("an unknown tool is a JSON-RPC invalid params error", async () => {
    const { client } = await connect({ token: mintTestKey(w.tenantA.id, ["read:locations"]).token });
    await expect(client.callTool({ name: "nope.nothing", arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it('on the wire the unknown-tool error is {code: -32602, message: "Unknown tool: <name>"}, as the spec\'s example', async () => {
    const { token } = mintTestKey(w.tenantA.id, ["read:locations"]);
    const { transport } = await connect({ token });
    const res = await rawPost(
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "nope.nothing", arguments: {} } },
      {
        authorization: `Bearer ${token}`,
        "mcp-session-id": transport.sessionId!,
        "mcp-protocol-version": "2025-06-18",
      },
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32602, message: "Unknown tool: nope.nothing" },
    });
  });

  it("a write key runs the write skill; a user caller also needs the role", async () => {
    const key = mintTestKey(w.tenantA.id, ["write:contacts"]);
    const { client } = await connect({ token: key.token });
    const ok = await client.callTool({ name: "test.write", arguments: {} });
    expect(structured(ok)).toEqual({ tenantId: w.tenantA.id, actor: { type: "api_key", keyId: key.keyId } });
    const viewer = await connect({ token: w.users.viewer.token });
    expect((await viewer.client.listTools()).tools.map((t) => t.name)).not.toContain("test.write");
    const user = await connect({ token: w.users.tenantUser.token });
    expect(structured(await user.client.callTool({ name: "test.write", arguments: {} }))).toMatchObject({
      actor: { type: "user", userId: w.users.tenantUser.id },
    });
  });
});

describe("location.list", () => {
  it("returns the tenant's locations from the same service as GET /v1/locations", async () => {
    const { client } = await connect({ token: mintTestKey(w.tenantA.id, ["read:locations"]).token });
    const page = structured(await client.callTool({ name: "location.list", arguments: {} }));
    const rest = await w.as("viewer").get("/v1/locations");
    expect(page.total).toBe(5);
    expect(page.data.map((l: any) => l.id)).toEqual(rest.body.data.map((l: any) => l.id));
    const active = structured(await client.callTool({ name: "location.list", arguments: { isActive: false } }));
    expect(active.data.map((l: any) => l.name)).toEqual(["Closed Springfield"]);
  });

  it("tenant isolation: a key of A never sees B, and tenantId input is ignored for API keys", async () => {
    const { client } = await connect({ token: mintTestKey(w.tenantA.id, ["read:locations"]).token });
    const page = structured(await client.callTool({ name: "location.list", arguments: { tenantId: w.tenantB.id } }));
    expect(page.data.every((l: any) => l.tenantId === w.tenantA.id)).toBe(true);
    expect(page.data.map((l: any) => l.name)).not.toContain("Tenant B Springfield");
    const b = await connect({ token: mintTestKey(w.tenantB.id, ["read:locations"]).token });
    expect(
      structured(await b.client.callTool({ name: "location.list", arguments: {} })).data.map((l: any) => l.name),
    ).toEqual(["Tenant B Springfield"]);
  });

  it("invalid input is a tool error with the issues", async () => {
    const { client } = await connect({ token: mintTestKey(w.tenantA.id, ["read:locations"]).token });
    const res = await client.callTool({ name: "location.list", arguments: { limit: 500 } });
    expect(res.isError).toBe(true);
    expect(JSON.parse((res.content as any)[0].text)).toMatchObject({
      error: "Invalid input",
      issues: [{ path: "limit" }],
    });
  });
});

describe("location.finder", () => {
  it("nearest first within the radius, with distances; inactive and other tenants excluded", async () => {
    const { client } = await connect({ token: mintTestKey(w.tenantA.id, ["read:locations"]).token });
    const res = structured(
      await client.callTool({ name: "location.finder", arguments: { ...SPRINGFIELD, radiusKm: 50 } }),
    );
    expect(res.data.map((l: any) => l.name)).toEqual(["Downtown Clinic", "Chatham Office"]);
    expect(res.data[0].distanceKm).toBe(0);
    expect(res.data[1].distanceKm).toBeCloseTo(12.6, 0);
    const wide = structured(
      await client.callTool({ name: "location.finder", arguments: { ...SPRINGFIELD, radiusKm: 400, limit: 2 } }),
    );
    expect(wide.data.map((l: any) => l.name)).toEqual(["Downtown Clinic", "Chatham Office"]);
    const all = structured(
      await client.callTool({ name: "location.finder", arguments: { ...SPRINGFIELD, radiusKm: 400 } }),
    );
    expect(all.data.map((l: any) => l.name)).toEqual(["Downtown Clinic", "Chatham Office", "Chicago Loop"]);
  });

  it("text match over name, city and postal code; combined with a point", async () => {
    const { client } = await connect({ token: mintTestKey(w.tenantA.id, ["read:locations"]).token });
    const text = structured(await client.callTool({ name: "location.finder", arguments: { query: "springfield" } }));
    expect(text.data.map((l: any) => l.name)).toEqual(["Downtown Clinic", "No Coordinates Store"]);
    expect(text.data[0].distanceKm).toBeNull();
    const zip = structured(await client.callTool({ name: "location.finder", arguments: { query: "6270" } }));
    expect(zip.data.map((l: any) => l.name)).toEqual(["Downtown Clinic"]);
    const both = structured(
      await client.callTool({ name: "location.finder", arguments: { ...SPRINGFIELD, radiusKm: 500, query: "chi" } }),
    );
    expect(both.data.map((l: any) => l.name)).toEqual(["Chicago Loop"]);
    const wildcard = structured(await client.callTool({ name: "location.finder", arguments: { query: "%" } }));
    expect(wildcard.total).toBe(0);
  });

  it("needs a point, a query or both; lat and lng go together", async () => {
    const { client } = await connect({ token: mintTestKey(w.tenantA.id, ["read:locations"]).token });
    const none = await client.callTool({ name: "location.finder", arguments: {} });
    expect(none.isError).toBe(true);
    const half = await client.callTool({ name: "location.finder", arguments: { lat: 10 } });
    expect(JSON.parse((half.content as any)[0].text)).toMatchObject({
      code: "VALIDATION_ERROR",
      details: { issues: [{ path: "lng" }] },
    });
  });

  it("geometry: haversine and a bounding box that splits at the antimeridian", () => {
    expect(haversineKm(39.7817, -89.6501, 41.8781, -87.6298)).toBeCloseTo(290, -1);
    const box = boundingBox(0, 179.9, 50);
    expect(box.lngRanges).toHaveLength(2);
    expect(boundingBox(89.9, 0, 50).lngRanges).toEqual([[-180, 180]]);
  });
});

describe("limits and audit of tool calls", () => {
  it("a tool over the time limit is a clear tool error (limit lowered for the test)", async () => {
    const { client } = await connect({
      token: mintTestKey(w.tenantA.id, ["read:locations"]).token,
      fetch: fetchWithEnv({ MCP_TOOL_TIMEOUT_MS: "100" }),
    });
    const res = await client.callTool({ name: "test.slow", arguments: {} });
    expect(res.isError).toBe(true);
    expect((res.content as any)[0].text).toContain("did not finish within 0.1 s");
  });

  it("a result over the size cap is a clear tool error (cap lowered for the test)", async () => {
    const { client } = await connect({
      token: mintTestKey(w.tenantA.id, ["read:locations"]).token,
      fetch: fetchWithEnv({ MCP_MAX_RESULT_BYTES: "1000" }),
    });
    const res = await client.callTool({ name: "test.huge", arguments: {} });
    expect(res.isError).toBe(true);
    expect((res.content as any)[0].text).toMatch(/over the .* limit; narrow the request/);
  });

  it("every call is audited with caller, tool, input shape without secrets, outcome, ip and user agent", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations", "write:contacts"]);
    const { client } = await connect({
      token: key.token,
      headers: { "user-agent": "claude-test/1.0", "cf-connecting-ip": "203.0.113.9" },
    });
    await client.callTool({ name: "test.write", arguments: { secretToken: "hunter22", n: 3 } });
    await client.callTool({ name: "location.finder", arguments: { query: "spring" } });
    const rows = await db().select().from(auditEvents).where(eq(auditEvents.actorId, key.keyId));
    const write = rows.find((r) => r.resourceId === "test.write")!;
    expect(write).toMatchObject({
      tenantId: w.tenantA.id,
      action: "mcp.tool_called",
      resourceType: "mcp_tool",
      ipAddress: "203.0.113.9",
      userAgent: "claude-test/1.0",
    });
    expect(write.metadata).toMatchObject({
      credential: "api_key",
      apiKeyId: key.keyId,
      outcome: "success",
      inputShape: { secretToken: "[redacted]", n: "number" },
    });
    expect(JSON.stringify(write)).not.toContain("hunter22");
    expect(rows.find((r) => r.resourceId === "location.finder")!.metadata).toMatchObject({
      outcome: "success",
      inputShape: { query: "string(6)" },
    });
  });
});
