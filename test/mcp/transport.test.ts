import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { beforeAll, describe, expect, it } from "vitest";
import type { McpSessionState, McpSessions } from "../../src/durable/mcp-sessions";
import { request } from "../helpers/http";
import { createWorld, type World } from "../helpers/seed";
import { BASE, connect, initializeBody, mintTestKey, rawPost, structured, testKeys, workerFetch } from "./helpers";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const RESOURCE_METADATA = `Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource"`;

describe("initialize and credentials", () => {
  it("opens a session with an API key: server info, negotiated version, session id", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    const res = await rawPost(initializeBody("2025-03-26"), { authorization: `Bearer ${key.token}` });
    expect(res.status).toBe(200);
    const sessionId = res.headers.get("mcp-session-id")!;
    expect(sessionId).toMatch(new RegExp(`^${w.tenantA.id}\\.`));
    const body = (await res.json()) as any;
    expect(body.result).toMatchObject({
      protocolVersion: "2025-03-26",
      serverInfo: { name: "reputation-ops" },
      capabilities: { tools: { listChanged: false } },
    });
    expect(res.headers.get("ratelimit-policy")).toBe('"mcp";q=1000;w=900');
    expect(res.headers.get("ratelimit")).toMatch(/^"mcp";r=\d+;t=\d+$/);
  });

  it("initialize negotiates each session revision; an unknown or 2026 one gets 2025-11-25", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    for (const [asked, answered] of [
      ["2025-11-25", "2025-11-25"],
      ["2025-06-18", "2025-06-18"],
      ["2099-01-01", "2025-11-25"],
    ]) {
      const res = await rawPost(initializeBody(asked), { authorization: `Bearer ${key.token}` });
      expect(((await res.json()) as any).result.protocolVersion).toBe(answered);
    }
  });

  it("without a credential: 401 ErrorResponse with the resource metadata challenge", async () => {
    const res = await rawPost(initializeBody());
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(RESOURCE_METADATA);
    expect(await res.json()).toEqual({ error: "Authentication required", code: "UNAUTHENTICATED" });
  });

  it("with a bad or revoked credential: 401 with the same challenge", async () => {
    for (const token of ["testkey_unknown", "not-a-token", "u:g:secret"]) {
      const res = await rawPost(initializeBody(), { authorization: `Bearer ${token}` });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe(RESOURCE_METADATA);
      expect(((await res.json()) as any).code).toBe("UNAUTHENTICATED");
    }
  });

  it("the SDK client sees the 401 as an error with status 401", async () => {
    const err = await connect().catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(String(err.message)).toMatch(/401|Unauthorized|Authentication required/i);
  });

  it("a session JWT opens a session for its home tenant or the x-tenant-id it can reach", async () => {
    const { client } = await connect({ token: w.users.viewer.token });
    const names = (await client.listTools()).tools.map((t) => t.name);
    // a viewer's session has every read:* scope and no write scope
    expect(names).toEqual(
      expect.arrayContaining(["location.finder", "location.list", "contact.list", "review.list", "campaign.get"]),
    );
    expect(names).not.toContain("contact.suppress");
    const foreign = await rawPost(initializeBody(), {
      authorization: `Bearer ${w.users.viewer.token}`,
      "x-tenant-id": w.tenantB.id,
    });
    expect(foreign.status).toBe(403);
  });

  it("API key revocation stops an open session at once: every request's credential is verified", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    const { client } = await connect({ token: key.token });
    await client.callTool({ name: "location.list", arguments: {} });
    testKeys.delete(key.token);
    const err = await client.callTool({ name: "location.list", arguments: {} }).catch((e) => e);
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect(err.code).toBe(401);
  });
});

describe("sessions", () => {
  it("later requests carry the credential with the session id; the session id alone is 401", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    const init = await rawPost(initializeBody(), { authorization: `Bearer ${key.token}` });
    const sessionId = init.headers.get("mcp-session-id")!;
    const bare = await rawPost(
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" },
    );
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toBe(RESOURCE_METADATA);
    const list = await rawPost(
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { authorization: `Bearer ${key.token}`, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" },
    );
    expect(list.status).toBe(200);
    expect(list.headers.get("mcp-session-id")).toBe(sessionId);
    expect(((await list.json()) as any).result.tools.map((t: { name: string }) => t.name)).toEqual([
      "location.finder",
      "location.list",
      "location.review-links",
      "white-label.get",
    ]);
  });

  it("an unknown or malformed session id is 404 so the client re-initializes", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    for (const id of [`${w.tenantA.id}.${"x".repeat(32)}`, "garbage"]) {
      const res = await rawPost(
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        { authorization: `Bearer ${key.token}`, "mcp-session-id": id },
      );
      expect(res.status).toBe(404);
      expect(((await res.json()) as any).code).toBe("NOT_FOUND");
    }
  });

  it("a request without a session id (and not initialize) is 400 (401 first without a credential)", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    const res = await rawPost(
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { authorization: `Bearer ${key.token}` },
    );
    expect(res.status).toBe(400);
    expect((await rawPost({ jsonrpc: "2.0", id: 2, method: "tools/list" })).status).toBe(401);
  });

  it("DELETE ends the session; the next request is 404 (the SDK client surfaces it)", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    const { client, transport } = await connect({ token: key.token });
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    const headers = { authorization: `Bearer ${key.token}`, "mcp-session-id": sessionId };
    const again = await rawPost({ jsonrpc: "2.0", id: 3, method: "tools/list" }, headers);
    expect(again.status).toBe(404);
    const del = await workerFetch(`${BASE}/mcp`, { method: "DELETE", headers });
    expect(del.status).toBe(404);
    await client.close();
  });

  it("an idle session expires after 30 minutes (404)", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    const { client, transport } = await connect({ token: key.token });
    const stub = env.MCP_SESSIONS.get(env.MCP_SESSIONS.idFromName(w.tenantA.id));
    await runInDurableObject(stub, async (_: McpSessions, state) => {
      const s = (await state.storage.get<McpSessionState>(`s:${transport.sessionId}`))!;
      await state.storage.put(`s:${transport.sessionId}`, { ...s, lastSeenAt: Date.now() - 31 * 60_000 });
    });
    const err = await client.listTools().catch((e) => e);
    expect(err.code).toBe(404);
  });

  it("GET has no standalone stream: 405 to a caller with a credential, 401 without", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    const res = await workerFetch(`${BASE}/mcp`, {
      method: "GET",
      headers: { accept: "text/event-stream", authorization: `Bearer ${key.token}` },
    });
    expect(res.status).toBe(405);
    const bare = await workerFetch(`${BASE}/mcp`, { method: "GET", headers: { accept: "text/event-stream" } });
    expect(bare.status).toBe(401);
  });
});

describe("header validation", () => {
  it("a foreign Origin is 403; same origin and no Origin are served", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    const foreign = await rawPost(initializeBody(), {
      authorization: `Bearer ${key.token}`,
      origin: "https://evil.example",
    });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as any).code).toBe("FORBIDDEN");
    const same = await rawPost(initializeBody(), { authorization: `Bearer ${key.token}`, origin: BASE });
    expect(same.status).toBe(200);
    expect(same.headers.get("access-control-allow-origin")).toBe(BASE);
    expect(same.headers.get("access-control-expose-headers")).toContain("Mcp-Session-Id");
  });

  it("an unknown MCP-Protocol-Version is 400; the supported ones are accepted", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    const init = await rawPost(initializeBody(), { authorization: `Bearer ${key.token}` });
    const sessionId = init.headers.get("mcp-session-id")!;
    const bad = await rawPost(
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { authorization: `Bearer ${key.token}`, "mcp-session-id": sessionId, "mcp-protocol-version": "1999-01-01" },
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).details.supported).toEqual(["2025-11-25", "2025-06-18", "2025-03-26"]);
    for (const v of ["2025-03-26", "2025-06-18", "2025-11-25"]) {
      const ok = await rawPost(
        { jsonrpc: "2.0", id: 3, method: "tools/list" },
        { authorization: `Bearer ${key.token}`, "mcp-session-id": sessionId, "mcp-protocol-version": v },
      );
      expect(ok.status).toBe(200);
    }
  });

  it("malformed JSON is 400", async () => {
    const res = await workerFetch(`${BASE}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{",
    });
    expect(res.status).toBe(400);
  });
});

describe("catalog, health and discovery", () => {
  it("GET /mcp/skills and /skills list every skill with schema, scope and access", async () => {
    for (const path of ["/mcp/skills", "/skills"]) {
      const res = await request("GET", path);
      expect(res.status).toBe(200);
      const finder = res.body.skills.find((s: any) => s.name === "location.finder");
      expect(finder).toMatchObject({
        requiredScope: "read:locations",
        access: "read",
        inputSchema: { type: "object", properties: { lat: { type: "number" }, query: { type: "string" } } },
        annotations: { readOnlyHint: true, openWorldHint: false },
      });
      expect(res.body.skills.find((s: any) => s.name === "agency.list-tenants")).toMatchObject({
        requiredScope: null,
        agencyOnly: true,
      });
      expect(res.body.endpoint).toBe(`${BASE}/mcp`);
    }
  });

  it("GET /mcp/health", async () => {
    const res = await request("GET", "/mcp/health");
    expect(res.body).toMatchObject({
      status: "ok",
      transport: "streamable-http",
      protocolVersions: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
    });
  });

  it("protected resource metadata at both RFC 9728 locations", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const res = await request("GET", path);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        resource: `${BASE}/mcp`,
        authorization_servers: [BASE],
        bearer_methods_supported: ["header"],
      });
      expect(res.body.scopes_supported).toContain("read:locations");
    }
  });

  it("the tools/list of a session carries the same schemas and annotations", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    const { client } = await connect({ token: key.token });
    const list = (await client.listTools()).tools.find((t) => t.name === "location.list")!;
    expect(list.inputSchema.properties).toHaveProperty("isActive");
    expect(list.inputSchema.properties).toHaveProperty("tenantId");
    expect(list.annotations).toMatchObject({ readOnlyHint: true });
    expect(structured(await client.callTool({ name: "location.list", arguments: { limit: 1 } }))).toHaveProperty(
      "pageInfo",
    );
  });
});
