import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "../../src/db/schema";
import { request } from "../helpers/http";
import { createWorld, db, seedTenant, type World } from "../helpers/seed";
import { BASE, MCP_URL, structured, workerFetch } from "../mcp/helpers";
import { type ConsentChoice, consentInBrowser, MemoryOAuthClient, REDIRECT } from "./helpers";

let w: World;
let siblingTenant: { id: string };

beforeAll(async () => {
  w = await createWorld();
  // a second tenant in tenant A's agency, for the agency session
  siblingTenant = await seedTenant({ agencyId: w.agencyA.id, name: "Sibling Dental" });
  await w.as("manager").post("/v1/locations", { name: "A Main Street" });
  await w.as("agencyAdmin", siblingTenant.id).post("/v1/locations", { name: "Sibling Location" });
  await w.as("tenantBAdmin").post("/v1/locations", { name: "B Location" });
});

/** The whole client side: discovery, registration, PKCE authorize via the consent page, token, connect. */
async function oauthConnect(choice: ConsentChoice, provider = new MemoryOAuthClient()) {
  const first = new StreamableHTTPClientTransport(MCP_URL, { fetch: workerFetch, authProvider: provider });
  const err = await new Client({ name: "t", version: "1" }).connect(first).catch((e) => e);
  expect(err).toBeInstanceOf(UnauthorizedError);
  const url = provider.authorizationUrl!;
  const consent = await consentInBrowser(url, choice);
  expect(consent.status).toBe(302);
  const code = consent.location!.searchParams.get("code")!;
  await first.finishAuth(code);
  const transport = new StreamableHTTPClientTransport(MCP_URL, { fetch: workerFetch, authProvider: provider });
  const client = new Client({ name: "t", version: "1" });
  await client.connect(transport);
  return { client, transport, provider, url, consent };
}

const tokenRequest = (fields: Record<string, string>) =>
  workerFetch(`${BASE}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });

describe("discovery and registration", () => {
  it("RFC 8414 authorization server metadata", async () => {
    const res = await request("GET", "/.well-known/oauth-authorization-server");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issuer: BASE,
      authorization_endpoint: `${BASE}/oauth/authorize`,
      token_endpoint: `${BASE}/oauth/token`,
      registration_endpoint: `${BASE}/oauth/register`,
      code_challenge_methods_supported: ["S256"],
      response_types_supported: ["code"],
    });
    expect(res.body.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
    expect(res.body.scopes_supported).toEqual(expect.arrayContaining(["read:reviews", "write:contacts", "agent:*"]));
  });

  it("answers a host other than the issuer with a JSON error naming the issuer, never an empty 404", async () => {
    const other = "http://127.0.0.1:8787";
    const cases: [string, RequestInit][] = [
      ["/.well-known/oauth-authorization-server", {}],
      [
        "/oauth/token",
        {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "grant_type=refresh_token&refresh_token=x",
        },
      ],
      [
        "/oauth/register",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ redirect_uris: ["https://app.example/cb"] }),
        },
      ],
    ];
    for (const [path, init] of cases) {
      const res = await workerFetch(other + path, init);
      expect(res.status, path).toBe(404);
      expect(res.headers.get("content-type"), path).toContain("application/json");
      const body = (await res.json()) as Record<string, any>;
      expect(body, path).toMatchObject({
        code: "NOT_FOUND",
        error: expect.stringContaining(`the issuer is ${BASE}`),
        details: { issuer: BASE, endpoint: `${BASE}${path}` },
      });
    }
    // the issuer's own host is served as before
    expect((await workerFetch(`${BASE}/.well-known/oauth-authorization-server`)).status).toBe(200);
  });

  it("dynamic registration accepts https and localhost redirect URIs only", async () => {
    const register = (redirect_uris: string[]) =>
      workerFetch(`${BASE}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "X", redirect_uris, token_endpoint_auth_method: "none" }),
      });
    expect((await register(["https://app.example.com/cb"])).status).toBe(201);
    expect((await register(["http://localhost:9999/cb", "http://127.0.0.1/cb"])).status).toBe(201);
    const remoteHttp = await register(["http://app.example.com/cb"]);
    expect(remoteHttp.status).toBe(400);
    const custom = await register(["https://ok.example.com/cb", "myapp://cb"]);
    expect(custom.status).toBe(400);
    expect(((await custom.json()) as any).error_description).toContain("https");
  });

  it("the authorize page refuses a request without PKCE S256 (rendered, not redirected to an unverified client)", async () => {
    const res = await workerFetch(
      `${BASE}/oauth/authorize?response_type=code&client_id=nope&redirect_uri=${encodeURIComponent(REDIRECT)}`,
    );
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toContain("text/html");
  });
});

describe("the full OAuth flow", () => {
  it("register, authorize with PKCE S256 through the consent page, token, call a tool", async () => {
    const { client, provider, url, consent } = await oauthConnect({
      email: w.users.manager.email,
      tenantId: w.tenantA.id,
      scopes: ["read:locations"],
    });
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("resource")).toBe(`${BASE}/mcp`);
    expect(consent.signInHtml).toContain("Test Desktop Client");
    expect(consent.signInHtml).toContain("read:locations");
    expect(consent.signInHtml).toContain("an app on your computer");
    expect(consent.consentHtml).toContain(`value="${w.tenantA.id}"`);
    expect(consent.consentHtml).not.toContain("Agency session");
    expect(provider.saved).toMatchObject({ token_type: "bearer", expires_in: 3600, scope: "read:locations" });
    expect(provider.saved!.refresh_token).toBeTruthy();

    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      "location.finder",
      "location.list",
      "location.review-links",
      "white-label.get",
    ]);
    const page = structured(await client.callTool({ name: "location.list", arguments: { tenantId: w.tenantB.id } }));
    expect(page.data.map((l: any) => l.name)).toEqual(["A Main Street"]);

    const row = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.actorId, w.users.manager.id), eq(auditEvents.action, "mcp.tool_called")))
      .get();
    expect(row?.metadata).toMatchObject({
      credential: "oauth",
      oauthClientId: provider.info!.client_id,
      userId: w.users.manager.id,
      outcome: "success",
    });
  });

  it("an access token is for /mcp only: REST and /me refuse it (its audience is the MCP resource, RFC 8707)", async () => {
    const { client, provider } = await oauthConnect({
      email: w.users.manager.email,
      tenantId: w.tenantA.id,
      scopes: ["read:locations"],
    });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const token = provider.saved!.access_token;
    const rest = await request("GET", "/v1/locations", { token, tenantId: w.tenantA.id });
    expect(rest.status).toBe(401);
    expect(rest.body).toMatchObject({ code: "UNAUTHENTICATED" });
    expect((await request("GET", "/me", { token })).status).toBe(401);
  });

  it("refresh rotates the refresh token; the superseded one stops working once its successor is used", async () => {
    const { provider } = await oauthConnect({ email: w.users.viewer.email, tenantId: w.tenantA.id });
    const clientId = provider.info!.client_id;
    const r1 = provider.saved!.refresh_token!;
    const first = await tokenRequest({ grant_type: "refresh_token", refresh_token: r1, client_id: clientId });
    expect(first.status).toBe(200);
    const t2 = (await first.json()) as any;
    expect(t2.refresh_token).not.toBe(r1);
    expect(t2.expires_in).toBe(3600);
    const second = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: t2.refresh_token,
      client_id: clientId,
    });
    expect(second.status).toBe(200);
    const replay = await tokenRequest({ grant_type: "refresh_token", refresh_token: r1, client_id: clientId });
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as any).error).toBe("invalid_grant");
  });

  it("revoking the app (DELETE /v1/oauth/grants/{id}) fails the next call at once", async () => {
    const { client, provider } = await oauthConnect({ email: w.users.tenantUser.email, tenantId: w.tenantA.id });
    const grants = await w.as("tenantUser").get("/v1/oauth/grants");
    expect(grants.status).toBe(200);
    const grant = grants.body.data.find((g: any) => g.clientId === provider.info!.client_id);
    expect(grant).toMatchObject({
      clientName: "Test Desktop Client",
      tenantId: w.tenantA.id,
      tenantName: w.tenantA.name,
      scopes: ["read:locations"],
      agencySession: false,
    });
    // another user's grant is not theirs to see or revoke
    expect((await w.as("manager").delete(`/v1/oauth/grants/${grant.id}`)).status).toBe(404);

    const del = await w.as("tenantUser").delete(`/v1/oauth/grants/${grant.id}`);
    expect(del.status).toBe(204);
    await expect(client.callTool({ name: "location.list", arguments: {} })).rejects.toThrow();
    const reuse = await workerFetch(`${BASE}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${provider.saved!.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      }),
    });
    expect(reuse.status).toBe(401);
    const refresh = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: provider.saved!.refresh_token!,
      client_id: provider.info!.client_id,
    });
    expect(refresh.status).toBe(400);
    expect((await w.as("tenantUser").get("/v1/oauth/grants")).body.data.some((g: any) => g.id === grant.id)).toBe(
      false,
    );
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "oauth_grant.revoked"), eq(auditEvents.resourceId, grant.id)))
      .get();
    expect(audit).toMatchObject({ actorId: w.users.tenantUser.id, tenantId: w.tenantA.id });
  });

  it("the grants routes are in the OpenAPI document", async () => {
    const doc = (await request("GET", "/docs/openapi.json")).body;
    expect(doc.paths["/v1/oauth/grants"].get.responses["200"]).toBeDefined();
    expect(doc.paths["/v1/oauth/grants/{id}"].delete.responses["204"]).toBeDefined();
    expect(doc.components.schemas.OAuthGrant.properties).toHaveProperty("clientName");
  });

  it("an API key cannot list grants (they belong to users)", async () => {
    const { mintTestKey } = await import("../mcp/helpers");
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    expect((await request("GET", "/v1/oauth/grants", { token: key.token, tenantId: w.tenantA.id })).status).toBe(403);
  });
});

describe("the consent page", () => {
  it("a wrong password re-renders the sign-in form with an error", async () => {
    const provider = new MemoryOAuthClient();
    await new Client({ name: "t", version: "1" })
      .connect(new StreamableHTTPClientTransport(MCP_URL, { fetch: workerFetch, authProvider: provider }))
      .catch(() => {});
    const res = await consentInBrowser(provider.authorizationUrl!, {
      email: w.users.manager.email,
      password: "wrong password!",
      tenantId: w.tenantA.id,
    });
    expect(res.status).toBe(401);
    expect(res.consentHtml).toContain("Invalid email or password.");
  });

  it("deny redirects back to the client with access_denied", async () => {
    const provider = new MemoryOAuthClient();
    await new Client({ name: "t", version: "1" })
      .connect(new StreamableHTTPClientTransport(MCP_URL, { fetch: workerFetch, authProvider: provider }))
      .catch(() => {});
    const res = await consentInBrowser(provider.authorizationUrl!, {
      email: w.users.manager.email,
      tenantId: w.tenantA.id,
      decision: "deny",
    });
    expect(res.status).toBe(302);
    expect(res.location!.origin + res.location!.pathname).toBe(REDIRECT);
    expect(res.location!.searchParams.get("error")).toBe("access_denied");
  });

  it("a tenant the user cannot reach is refused on the page", async () => {
    const provider = new MemoryOAuthClient();
    await new Client({ name: "t", version: "1" })
      .connect(new StreamableHTTPClientTransport(MCP_URL, { fetch: workerFetch, authProvider: provider }))
      .catch(() => {});
    const res = await consentInBrowser(provider.authorizationUrl!, {
      email: w.users.manager.email,
      tenantId: w.tenantB.id,
    });
    expect(res.status).toBe(400);
    expect(res.body).toContain("Choose a tenant you can access.");
  });
});

describe("agency sessions", () => {
  it("an agency admin's agency session lists the agency's tenants and acts for any of them by tenantId", async () => {
    const { client } = await oauthConnect({
      email: w.users.agencyAdmin.email,
      tenantId: w.tenantA.id,
      agency: true,
      scopes: ["read:locations"],
    });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual([
      "agency.list-tenants",
      "location.finder",
      "location.list",
      "location.review-links",
      "white-label.get",
    ]);
    const tenants = structured(await client.callTool({ name: "agency.list-tenants", arguments: {} }));
    expect(tenants.data.map((t: any) => t.id).sort()).toEqual([w.tenantA.id, siblingTenant.id].sort());
    const sibling = structured(
      await client.callTool({ name: "location.list", arguments: { tenantId: siblingTenant.id } }),
    );
    expect(sibling.data.map((l: any) => l.name)).toEqual(["Sibling Location"]);
    const home = structured(await client.callTool({ name: "location.list", arguments: {} }));
    expect(home.data.map((l: any) => l.name)).toEqual(["A Main Street"]);
    const foreign = await client.callTool({ name: "location.list", arguments: { tenantId: w.tenantB.id } });
    expect(foreign.isError).toBe(true);
    expect((foreign.content as any)[0].text).toContain("Tenant not accessible");
  });

  it("the agency option appears only for an agency admin, and a tenant session of theirs has no agency tools", async () => {
    const { client, consent } = await oauthConnect({ email: w.users.agencyAdmin.email, tenantId: siblingTenant.id });
    expect(consent.consentHtml).toContain("Agency session");
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain("agency.list-tenants");
    const page = structured(await client.callTool({ name: "location.list", arguments: { tenantId: w.tenantA.id } }));
    expect(page.data.map((l: any) => l.name)).toEqual(["Sibling Location"]);
  });
});
