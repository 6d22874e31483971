import { env } from "cloudflare:workers";
import { SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { request } from "../helpers/http";
import { createWorld, sessionFor, type World } from "../helpers/seed";

// OWASP API2:2023 Broken Authentication, specialised: every way a session JWT or an API key can be
// forged, stale or revoked is a 401 UNAUTHENTICATED with a WWW-Authenticate challenge, on REST and MCP.

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const b64url = (o: unknown) => btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
const now = () => Math.floor(Date.now() / 1000);
const claims = (o: Record<string, unknown> = {}) => ({
  sub: w.users.tenantAdmin.id,
  // the session record the token belongs to (docs/sessions.md)
  sid: w.users.tenantAdmin.sessionId,
  iat: now(),
  exp: now() + 3600,
  iss: env.JWT_ISSUER,
  aud: env.JWT_AUDIENCE,
  ...o,
});
const sign = (payload: Record<string, unknown>, secret = env.JWT_SECRET!, alg = "HS256") =>
  new SignJWT(payload).setProtectedHeader({ alg, typ: "JWT" }).sign(new TextEncoder().encode(secret));

const expectUnauthenticated = async (token: string, label: string) => {
  for (const [method, path] of [
    ["GET", "/v1/locations"],
    ["GET", "/me"],
    ["POST", "/mcp"],
  ] as const) {
    const res = await request(method, path, {
      token,
      tenantId: w.tenantA.id,
      headers: path === "/mcp" ? { accept: "application/json, text/event-stream" } : undefined,
      body:
        path === "/mcp"
          ? {
              jsonrpc: "2.0",
              id: 1,
              method: "initialize",
              params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
            }
          : undefined,
    });
    expect(res.status, `${label} on ${path}: ${res.text.slice(0, 200)}`).toBe(401);
    expect(res.headers.get("www-authenticate"), `${label} on ${path}`).toMatch(/^Bearer/);
    if (path !== "/mcp") expect(res.body.code).toBe("UNAUTHENTICATED");
  }
};

describe("API2 broken authentication: session JWTs", () => {
  it("a well-formed token is accepted (the control for the cases below)", async () => {
    const res = await request("GET", "/v1/locations", { token: await sign(claims()), tenantId: w.tenantA.id });
    expect(res.status).toBe(200);
  });

  it("alg none (unsigned, with or without a trailing signature) is refused", async () => {
    const unsigned = `${b64url({ alg: "none", typ: "JWT" })}.${b64url(claims())}.`;
    await expectUnauthenticated(unsigned, "alg none");
    await expectUnauthenticated(`${unsigned}AAAA`, "alg none with signature");
  });

  it("HS256 with a wrong key, and HS512 with the right key, are refused", async () => {
    await expectUnauthenticated(await sign(claims(), "another-secret-of-at-least-32-characters!!"), "wrong key");
    await expectUnauthenticated(await sign(claims(), env.JWT_SECRET!, "HS512"), "HS512");
  });

  it("expired, not-yet-issued-valid, wrong audience and wrong issuer are refused", async () => {
    await expectUnauthenticated(await sign(claims({ iat: now() - 9 * 3600, exp: now() - 3600 })), "expired");
    await expectUnauthenticated(await sign(claims({ aud: "someone-else" })), "wrong aud");
    await expectUnauthenticated(await sign(claims({ iss: "https://evil.example" })), "wrong iss");
    await expectUnauthenticated(await sign(claims({ sub: "no-such-user" })), "unknown subject");
    const { sub: _, ...noSub } = claims();
    await expectUnauthenticated(await sign(noSub), "no subject");
    const { sid: __, ...noSession } = claims();
    await expectUnauthenticated(await sign(noSession), "no session id");
    await expectUnauthenticated(await sign(claims({ sid: "no-such-session" })), "unknown session");
    await expectUnauthenticated(await sign(claims({ sid: w.users.manager.sessionId })), "another user's session");
  });

  it("a tampered payload (role escalation attempt) is refused", async () => {
    const [h, , s] = w.users.viewer.token.split(".");
    await expectUnauthenticated(`${h}.${b64url(claims({ sub: w.users.platformAdmin.id }))}.${s}`, "tampered");
  });

  it("a deactivated user's still-unexpired token is refused", async () => {
    const res = await w.as("tenantAdmin").delete(`/v1/users/${w.users.tenantUser.id}`);
    expect(res.status, res.text).toBeLessThan(300);
    await expectUnauthenticated(w.users.tenantUser.token, "deactivated user");
  });

  it("a token whose session ended (sign-out) is refused, though unexpired and well signed", async () => {
    const session = await sessionFor(w.users.manager.id);
    expect((await request("POST", "/auth/logout", { token: session.token })).status).toBe(200);
    await expectUnauthenticated(session.token, "signed-out session");
  });
});

describe("API2 broken authentication: API keys", () => {
  it("a revoked key is refused at once on REST and MCP; a guessed key with the right prefix too", async () => {
    const minted = await w.as("tenantAdmin").post("/v1/api-keys", { name: "to revoke" });
    expect(minted.status).toBe(201);
    expect((await request("GET", "/v1/locations", { token: minted.body.key, tenantId: w.tenantA.id })).status).toBe(
      200,
    );
    expect((await w.as("tenantAdmin").delete(`/v1/api-keys/${minted.body.id}`)).status).toBe(204);
    await expectUnauthenticated(minted.body.key, "revoked key");
    await expectUnauthenticated(`rk_live_${"A".repeat(43)}`, "guessed key");
    await expectUnauthenticated(
      minted.body.key.slice(0, -1) + (minted.body.key.endsWith("A") ? "B" : "A"),
      "one character off",
    );
  });

  it("an expired key is refused", async () => {
    const minted = await w
      .as("tenantAdmin")
      .post("/v1/api-keys", { name: "short", expiresAt: new Date(Date.now() + 1500).toISOString() });
    expect(minted.status, minted.text).toBe(201);
    await new Promise((r) => setTimeout(r, 1600));
    await expectUnauthenticated(minted.body.key, "expired key");
  });
});

// Reused OAuth refresh tokens (rotation; a superseded token is invalid_grant once its successor is
// used) are proven end to end in test/oauth/oauth.test.ts ("refresh rotates the refresh token ...").
