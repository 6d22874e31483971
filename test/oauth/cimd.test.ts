import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkOutboundUrl } from "../../src/lib/ssrf";
import { request } from "../helpers/http";
import { createWorld, type World } from "../helpers/seed";
import { BASE, workerFetch } from "../mcp/helpers";
import { consentInBrowser } from "./helpers";

let w: World;
const CLIENT_ID = "https://client.example.com/oauth/client-metadata.json";
const REDIRECT = "https://client.example.com/callback";

/** A PKCE S256 pair. */
async function pkce() {
  const verifier = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32)))).replace(
    /[+/=]/g,
    (ch) => ({ "+": "-", "/": "_", "=": "" })[ch]!,
  );
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const challenge = btoa(String.fromCharCode(...digest)).replace(
    /[+/=]/g,
    (ch) => ({ "+": "-", "/": "_", "=": "" })[ch]!,
  );
  return { verifier, challenge };
}

beforeAll(async () => {
  w = await createWorld();
  await w.as("manager").post("/v1/locations", { name: "CIMD Street" });
  // The library reads a document from its cache before fetching it; the test puts the client's
  // published document there, since the test runtime has no network.
  const cache = await caches.open("workers-oauth-provider:cimd:v1");
  const doc = {
    client_id: CLIENT_ID,
    client_name: "Metadata Client",
    client_uri: "https://client.example.com",
    redirect_uris: [REDIRECT],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
  await cache.put(
    CLIENT_ID,
    new Response(JSON.stringify(doc), {
      headers: { "content-type": "application/json", "cache-control": "public, max-age=3600" },
    }),
  );
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
    for (const [k, v] of Object.entries({
      response_type: "code",
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "s1",
      scope: "read:locations",
      resource: `${BASE}/mcp`,
    }))
      url.searchParams.set(k, v);
    const consent = await consentInBrowser(url, {
      email: w.users.manager.email,
      tenantId: w.tenantA.id,
      scopes: ["read:locations"],
    });
    expect(consent.signInHtml).toContain("Metadata Client");
    expect(consent.signInHtml).toContain("client.example.com");
    expect(consent.status).toBe(302);
    expect(consent.location!.origin + consent.location!.pathname).toBe(REDIRECT);
    expect(consent.location!.searchParams.get("iss")).toBe(BASE);
    expect(consent.location!.searchParams.get("state")).toBe("s1");
    const token = await workerFetch(`${BASE}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: consent.location!.searchParams.get("code")!,
        client_id: CLIENT_ID,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        resource: `${BASE}/mcp`,
      }).toString(),
    });
    expect(token.status).toBe(200);
    const { access_token, scope } = (await token.json()) as { access_token: string; scope: string };
    expect(scope).toBe("read:locations");
    const list = await workerFetch(`${BASE}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${access_token}`,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "location.list",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "location.list",
          arguments: {},
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" },
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    const body = (await list.json()) as any;
    expect(body.result.structuredContent.data.map((l: { name: string }) => l.name)).toEqual(["CIMD Street"]);
  });

  it("a client_id URL on a private, loopback or metadata host is refused before anything fetches it", async () => {
    for (const id of [
      "https://127.0.0.1/meta.json",
      "https://169.254.169.254/latest/meta-data",
      "https://10.0.0.5/c.json",
      "https://localhost/c.json",
    ]) {
      const page = await workerFetch(
        `${BASE}/oauth/authorize?response_type=code&client_id=${encodeURIComponent(id)}&redirect_uri=${encodeURIComponent(REDIRECT)}`,
      );
      expect(page.status, id).toBe(400);
      expect(await page.text()).toContain("could not be verified");
      const token = await workerFetch(`${BASE}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: "x",
          client_id: id,
          redirect_uri: REDIRECT,
          code_verifier: "v",
        }).toString(),
      });
      expect(token.status, id).toBe(401);
      expect(((await token.json()) as { error: string }).error).toBe("invalid_client");
    }
  });
});

/**
 * The network, as the Worker's global fetch sees it: every request is recorded, and none leaves the
 * machine. Public client hosts answer as an attacker would: a redirect inward, or a document whose
 * jwks_uri points inward.
 */
const network: string[] = [];
const INTERNAL = "https://127.0.0.1:8443";
const REDIRECTING_ID = "https://redirecting.example.net/client.json";
const JWKS_ID = "https://jwks-client.example.net/client.json";
let realFetch: typeof fetch;

function answer(req: Request): Response {
  if (req.url === REDIRECTING_ID)
    return new Response(null, { status: 302, headers: { location: `${INTERNAL}/client.json` } });
  if (req.url === JWKS_ID) {
    return new Response(
      JSON.stringify({
        client_id: JWKS_ID,
        client_name: "Keys Inward",
        redirect_uris: [REDIRECT],
        grant_types: ["authorization_code", "client_credentials"],
        response_types: ["code"],
        token_endpoint_auth_method: "private_key_jwt",
        jwks_uri: `${INTERNAL}/jwks.json`,
      }),
      { headers: { "content-type": "application/json" } },
    );
  }
  return new Response("not found", { status: 404 });
}

const b64url = (v: unknown) =>
  btoa(JSON.stringify(v)).replace(/[+/=]/g, (ch) => ({ "+": "-", "/": "_", "=": "" })[ch]!);
/** A client assertion (RFC 7523) naming `iss` as the client; the signature is never reached. */
const assertion = (iss: string) =>
  `${b64url({ alg: "RS256", typ: "JWT", kid: "k1" })}.${b64url({ iss, sub: iss, aud: `${BASE}/oauth/token`, jti: crypto.randomUUID(), exp: Math.floor(Date.now() / 1000) + 60 })}.c2ln`;

describe("every path by which a client id URL reaches a fetch goes through the SSRF guard", () => {
  beforeAll(() => {
    realFetch = globalThis.fetch;
    // follows redirects the way the runtime's fetch does, unless told redirect: "manual"
    const networkFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const req = new Request(input, init);
      network.push(req.url);
      const res = answer(req);
      const location = res.headers.get("location");
      if (req.redirect === "follow" && location)
        return networkFetch(new URL(location, req.url).href, { headers: req.headers });
      return res;
    };
    globalThis.fetch = networkFetch as typeof fetch;
  });
  afterAll(() => {
    globalThis.fetch = realFetch;
  });

  const token = (headers: Record<string, string>, body: Record<string, string>) =>
    workerFetch(`${BASE}/oauth/token`, { method: "POST", headers, body: new URLSearchParams(body).toString() });
  const grant = { grant_type: "authorization_code", code: "x", redirect_uri: REDIRECT, code_verifier: "v" };

  it("form body in any content-type spelling, Basic auth, a client assertion's iss, the authorize query, the registration path, redirects and jwks_uri: no request reaches an internal host", async () => {
    const id = `${INTERNAL}/client.json`;
    const responses = [
      await token({ "content-type": "Application/X-WWW-Form-Urlencoded" }, { ...grant, client_id: id }),
      await token(
        { "content-type": "application/x-www-form-urlencoded; charset=UTF-8" },
        { ...grant, client_id: "https://[::ffff:127.0.0.1]:8443/client.json" },
      ),
      await token(
        {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${btoa(`${encodeURIComponent(id)}:s`)}`,
        },
        grant,
      ),
      await token(
        { "content-type": "application/x-www-form-urlencoded" },
        {
          ...grant,
          client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
          client_assertion: assertion(id),
        },
      ),
      await workerFetch(
        `${BASE}/oauth/authorize?response_type=code&client_id=${encodeURIComponent(id)}&redirect_uri=${encodeURIComponent(REDIRECT)}`,
      ),
      await workerFetch(`${BASE}/oauth/register/${encodeURIComponent(id)}`),
      // a public host that redirects inward
      await token({ "content-type": "application/x-www-form-urlencoded" }, { ...grant, client_id: REDIRECTING_ID }),
      // a public document whose jwks_uri points inward
      await token(
        { "content-type": "application/x-www-form-urlencoded" },
        {
          grant_type: "client_credentials",
          client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
          client_assertion: assertion(JWKS_ID),
        },
      ),
    ];
    for (const res of responses) expect(res.status, await res.clone().text()).toBeGreaterThanOrEqual(400);
    expect(network.filter((url) => !checkOutboundUrl(url).ok)).toEqual([]);
    // the public hosts were asked (so the checks above were reached), each once, and never followed inward
    expect(network.filter((url) => url === REDIRECTING_ID)).toHaveLength(1);
    expect(network.filter((url) => url === JWKS_ID)).toHaveLength(1);
  });
});
