import { beforeAll, describe, expect, it } from "vitest";
import { request } from "../helpers/http";
import { createWorld, type World } from "../helpers/seed";
import { BASE, workerFetch } from "./helpers";
import { consentInBrowser } from "./oauth-helpers";

let w: World;
const CLIENT_ID = "https://client.example.com/oauth/client-metadata.json";
const REDIRECT = "https://client.example.com/callback";

/** A PKCE S256 pair. */
async function pkce() {
  const verifier = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32)))).replace(/[+/=]/g, (ch) => ({ "+": "-", "/": "_", "=": "" })[ch]!);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const challenge = btoa(String.fromCharCode(...digest)).replace(/[+/=]/g, (ch) => ({ "+": "-", "/": "_", "=": "" })[ch]!);
  return { verifier, challenge };
}

beforeAll(async () => {
  w = await createWorld();
  await w.as("manager").post("/v1/locations", { name: "CIMD Street" });
  // The library reads a document from its cache before fetching it; the test puts the client's
  // published document there, since the test runtime has no network.
  const cache = await caches.open("workers-oauth-provider:cimd:v1");
  const doc = { client_id: CLIENT_ID, client_name: "Metadata Client", client_uri: "https://client.example.com", redirect_uris: [REDIRECT], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  await cache.put(CLIENT_ID, new Response(JSON.stringify(doc), { headers: { "content-type": "application/json", "cache-control": "public, max-age=3600" } }));
});

describe("Client ID Metadata Documents", () => {
  it("metadata advertises CIMD and iss in the authorization response beside DCR", async () => {
    const res = await request("GET", "/.well-known/oauth-authorization-server");
    expect(res.body.client_id_metadata_document_supported).toBe(true);
    expect(res.body.authorization_response_iss_parameter_supported).toBe(true);
    expect(res.body.registration_endpoint).toBe(`${BASE}/oauth/register`);
  });

  it("a URL client_id signs in without registering; the code comes back with iss; the token works on /mcp", async () => {
    const { verifier, challenge } = await pkce();
    const url = new URL(`${BASE}/oauth/authorize`);
    for (const [k, v] of Object.entries({ response_type: "code", client_id: CLIENT_ID, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256", state: "s1", scope: "read:locations", resource: `${BASE}/mcp` })) url.searchParams.set(k, v);
    const consent = await consentInBrowser(url, { email: w.users.manager.email, tenantId: w.tenantA.id, scopes: ["read:locations"] });
    expect(consent.signInHtml).toContain("Metadata Client");
    expect(consent.signInHtml).toContain("client.example.com");
    expect(consent.status).toBe(302);
    expect(consent.location!.origin + consent.location!.pathname).toBe(REDIRECT);
    expect(consent.location!.searchParams.get("iss")).toBe(BASE);
    expect(consent.location!.searchParams.get("state")).toBe("s1");
    const token = await workerFetch(`${BASE}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", code: consent.location!.searchParams.get("code")!, client_id: CLIENT_ID, redirect_uri: REDIRECT, code_verifier: verifier, resource: `${BASE}/mcp` }).toString(),
    });
    expect(token.status).toBe(200);
    const { access_token, scope } = (await token.json()) as { access_token: string; scope: string };
    expect(scope).toBe("read:locations");
    const list = await workerFetch(`${BASE}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${access_token}`, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "location.list" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "location.list", arguments: {}, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} } } }),
    });
    const body = (await list.json()) as any;
    expect(body.result.structuredContent.data.map((l: { name: string }) => l.name)).toEqual(["CIMD Street"]);
  });

  it("a client_id URL on a private, loopback or metadata host is refused before anything fetches it", async () => {
    for (const id of ["https://127.0.0.1/meta.json", "https://169.254.169.254/latest/meta-data", "https://10.0.0.5/c.json", "https://localhost/c.json"]) {
      const page = await workerFetch(`${BASE}/oauth/authorize?response_type=code&client_id=${encodeURIComponent(id)}&redirect_uri=${encodeURIComponent(REDIRECT)}`);
      expect(page.status, id).toBe(400);
      expect(await page.text()).toContain("could not be verified");
      const token = await workerFetch(`${BASE}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "authorization_code", code: "x", client_id: id, redirect_uri: REDIRECT, code_verifier: "v" }).toString(),
      });
      expect(token.status, id).toBe(401);
      expect(((await token.json()) as { error: string }).error).toBe("invalid_client");
    }
  });
});
