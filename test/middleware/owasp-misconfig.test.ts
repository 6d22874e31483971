import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { isConsolePath } from "../../src/modules/console/routes";
import { mintUnsubscribeToken } from "../../src/modules/links/tokens";
import { request } from "../helpers/http";
import { operations } from "../helpers/openapi";
import { createWorld, type World } from "../helpers/seed";
import { newContact, newLocation, newSolicitation } from "../inbox/helpers";

// OWASP API8:2023 Security Misconfiguration and API9:2023 Improper Inventory Management.

let w: World;
let pages: Record<string, string>;
beforeAll(async () => {
  w = await createWorld();
  const location = await newLocation(w);
  const contact = await newContact(w);
  const s = await newSolicitation({ tenantId: w.tenantA.id, locationId: location.id, contactId: contact.id });
  const unsub = await mintUnsubscribeToken(env.JWT_SECRET!, {
    tenantId: w.tenantA.id,
    contactId: contact.id,
    channel: "email",
    solicitationId: s.id,
  });
  pages = {
    "feedback page": `/f/${s.token}`,
    "feedback thanks page": `/f/${s.token}/thanks`,
    "unsubscribe page": `/unsubscribe/${unsub}`,
    "OAuth authorize page (error)": "/oauth/authorize",
    "SSO completion page": "/sso/complete",
    "console sign-in page": "/",
    "API reference (/docs)": "/docs",
  };
});

const EVIL = "https://evil.example";

describe("API8 CORS", () => {
  it("REST routes never echo an arbitrary Origin, with or without credentials, nor allow credentials", async () => {
    for (const [method, path] of [
      ["GET", "/v1/locations"],
      ["GET", "/me"],
      ["POST", "/auth/login"],
      ["GET", "/docs/openapi.json"],
      ["OPTIONS", "/v1/locations"],
    ] as const) {
      const res = await request(method, path, {
        token: w.users.tenantAdmin.token,
        tenantId: w.tenantA.id,
        unchecked: method === "OPTIONS",
        headers: {
          origin: EVIL,
          "access-control-request-method": "GET",
          "access-control-request-headers": "authorization",
        },
        body: method === "POST" ? { email: "x@example.test", password: "wrong-password" } : undefined,
      });
      expect(res.headers.get("access-control-allow-origin"), `${method} ${path}`).not.toBe(EVIL);
      expect(res.headers.get("access-control-allow-credentials"), `${method} ${path}`).toBeNull();
    }
  });

  it("the public MCP discovery documents allow any origin but never credentials", async () => {
    const res = await request("GET", "/.well-known/oauth-protected-resource", { headers: { origin: EVIL } });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("MCP refuses a browser Origin that is not its own (DNS rebinding), before any credential check", async () => {
    const res = await request("POST", "/mcp", {
      token: w.users.tenantAdmin.token,
      headers: { origin: EVIL, accept: "application/json, text/event-stream" },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const own = await request("OPTIONS", "/mcp", {
      headers: {
        origin: new URL(env.PUBLIC_BASE_URL ?? "http://localhost:8787").origin,
        "access-control-request-method": "POST",
      },
    });
    expect(own.status).toBeLessThan(300);
  });
});

describe("API8 security headers", () => {
  it("every HTML page has a CSP that forbids framing and plugins, nosniff and no referrer leak", async () => {
    for (const [name, path] of Object.entries(pages)) {
      const res = await request("GET", path);
      expect(res.headers.get("content-type"), name).toContain("text/html");
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp, `${name} CSP`).toContain("default-src 'none'");
      expect(csp, `${name} CSP`).toContain("frame-ancestors 'none'");
      expect(csp, `${name} CSP`).not.toContain("unsafe-eval");
      expect(res.headers.get("x-content-type-options"), `${name} nosniff`).toBe("nosniff");
      expect(res.headers.get("referrer-policy"), `${name} referrer`).toBe("no-referrer");
    }
    console.log(`security headers: ${Object.keys(pages).length} HTML pages checked`);
  });

  it("JSON responses carry nosniff and are never cached by shared caches when authenticated", async () => {
    const res = await w.as("viewer").get("/v1/locations");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control") ?? "").not.toMatch(/public/);
  });
});

describe("API8 errors never leak internals", () => {
  it("unknown routes, malformed JSON and wrong content types answer an ErrorResponse without stack or SQL", async () => {
    const cases = [
      await request("GET", "/v1/no-such-thing", { token: w.users.tenantAdmin.token, tenantId: w.tenantA.id }),
      await request("POST", "/v1/locations", {
        token: w.users.tenantAdmin.token,
        tenantId: w.tenantA.id,
        body: '{"name": ',
        headers: { "content-type": "application/json" },
      }),
      await request("POST", "/v1/locations", {
        token: w.users.tenantAdmin.token,
        tenantId: w.tenantA.id,
        body: "<xml/>",
        headers: { "content-type": "application/xml" },
      }),
      await request("GET", "/v1/locations?limit=abc'--", { token: w.users.tenantAdmin.token, tenantId: w.tenantA.id }),
      await request("GET", "/v1/contacts?search=%27%20OR%201%3D1--", {
        token: w.users.tenantAdmin.token,
        tenantId: w.tenantA.id,
      }),
    ];
    for (const res of cases) {
      expect(res.status).toBeLessThan(500);
      expect(res.text).not.toMatch(/\n\s+at |SQLITE|D1_ERROR|node_modules|\.ts:\d+/);
    }
    expect(cases.map((r) => r.body.code)).toEqual([
      "NOT_FOUND",
      "VALIDATION_ERROR",
      "VALIDATION_ERROR",
      "VALIDATION_ERROR",
      undefined,
    ]);
  });
});

/** Routes deliberately outside the OpenAPI document, each with the reason. */
const UNDOCUMENTED: Record<string, string> = {
  "GET /mcp":
    "MCP Streamable HTTP transport's SSE stream (POST /mcp is documented; GET and DELETE are named in its description)",
  "DELETE /mcp": "MCP transport (session end)",
  "OPTIONS /mcp": "MCP transport (CORS preflight)",
  "PUT /mcp": "MCP transport: answers 405 with the allowed methods",
  "PATCH /mcp": "MCP transport: answers 405 with the allowed methods",
  "GET /.well-known/oauth-protected-resource": "RFC 9728 metadata for MCP OAuth",
  "OPTIONS /.well-known/oauth-protected-resource": "RFC 9728 metadata preflight",
  "GET /.well-known/oauth-protected-resource/mcp": "RFC 9728 metadata (path-suffixed form)",
  "OPTIONS /.well-known/oauth-protected-resource/mcp": "RFC 9728 metadata preflight",
  "GET /mcp/readonly": "MCP transport of the read-only endpoint: 405 like GET /mcp",
  "DELETE /mcp/readonly": "MCP transport of the read-only endpoint (session end)",
  "OPTIONS /mcp/readonly": "MCP transport of the read-only endpoint (CORS preflight)",
  "PUT /mcp/readonly": "MCP transport of the read-only endpoint: 405",
  "PATCH /mcp/readonly": "MCP transport of the read-only endpoint: 405",
  "GET /.well-known/oauth-protected-resource/mcp/readonly": "RFC 9728 metadata of the read-only endpoint",
  "OPTIONS /.well-known/oauth-protected-resource/mcp/readonly": "RFC 9728 metadata preflight",
  "POST /oauth/authorize": "OAuth consent form post (HTML)",
  "GET /f/{token}": "hosted feedback page (HTML); its JSON twin /v1/f/{token} is documented",
  "POST /f/{token}": "no-JavaScript form post of the feedback page (HTML); JSON twin documented",
  "GET /f/{token}/thanks": "feedback thank-you page (HTML)",
  "GET /account/connected-apps":
    "the connected apps page's old address: a redirect to the console's /app/connected-apps (REST twin GET /me/oauth-grants)",
};
/** Mounted with app.all by @cloudflare/workers-oauth-provider (RFC 8414 / 7591 / 6749 endpoints). */
const OAUTH_PROVIDER_ENDPOINTS = [
  "/.well-known/oauth-authorization-server",
  "/oauth/token",
  "/oauth/register",
  "/oauth/register/*",
];
// "/me/*" also covers "/me" itself (src/app.ts)
const MIDDLEWARE_PATTERNS = ["/*", "/me/*", "/auth/*", "/v1/*", "/admin/*", "/agency/*"];

describe("API9 inventory", () => {
  it("every registered route is documented and every documented operation is registered, with listed exceptions", () => {
    const app = createApp();
    const toTemplate = (p: string) => p.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}");
    const registered = new Set(
      app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${toTemplate(r.path)}`),
    );
    const all = new Set(app.routes.filter((r) => r.method === "ALL").map((r) => r.path));
    const documented = new Set(operations().map((o) => `${o.method.toUpperCase()} ${o.path}`));
    // the console's pages are HTML, each calling the services of a documented twin: their own inventory is
    // test/console/matrix.test.ts (every page and form × every role)
    const undocumented = [...registered].filter((r) => !documented.has(r) && !isConsolePath(r.split(" ")[1]!)).sort();
    expect(undocumented).toEqual(Object.keys(UNDOCUMENTED).sort());
    // the provider's endpoints are mounted for all methods (app.all); POST /oauth/token is documented
    expect([...documented].filter((d) => !registered.has(d) && !all.has(d.split(" ")[1]!))).toEqual([]);
    expect([...all].filter((p) => !isConsolePath(p)).sort()).toEqual(
      [...MIDDLEWARE_PATTERNS, ...OAUTH_PROVIDER_ENDPOINTS].sort(),
    );
    console.log(
      `inventory: ${documented.size} documented operations all registered; ${undocumented.length} registered routes outside the document, each justified; ${OAUTH_PROVIDER_ENDPOINTS.length} OAuth provider endpoints`,
    );
  });
});
