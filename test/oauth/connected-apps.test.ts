// Connected apps (issue #35, item 4): every OAuth grant of the signed-in user, listed and revoked over
// REST (/me/oauth-grants) and on the page /account/connected-apps (sign-in, CSRF-protected forms).

import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "../../src/db/schema";
import { controlDb } from "../../src/db/shards";
import { startBrowserSession } from "../../src/middleware/browser-session";
import { request } from "../helpers/http";
import { createWorld, db, shardOf, TEST_PASSWORD, type World } from "../helpers/seed";
import { BASE, initializeBody, mintTestKey, rawPost, workerFetch } from "../mcp/helpers";
import { authorizeWithConsent, MemoryOAuthClient } from "./helpers";

/** A client whose registered name is markup and whose metadata names a logo. */
class NamedClient extends MemoryOAuthClient {
  constructor(
    name: string,
    readonly logo?: string,
  ) {
    super(name);
  }
  override get clientMetadata() {
    return { ...super.clientMetadata, ...(this.logo ? { logo_uri: this.logo } : {}) };
  }
}

const XSS_NAME = `<img src=x onerror="alert(1)"> Evil & "Co"`;
const LOGO = "https://logo.example/app.png";

let w: World;

beforeAll(async () => {
  w = await createWorld();
});

/** Connects a fresh client as `who` and returns its tokens, client id and grant id (from the token). */
async function connectApp(
  who: "tenantUser" | "manager",
  scope = "read:locations read:reviews",
  name = "Claude",
  world: World = w,
) {
  const provider = new NamedClient(name, LOGO);
  const access = await authorizeWithConsent(provider, scope, {
    email: world.users[who].email,
    tenantId: world.tenantA.id,
  });
  return {
    access,
    refresh: provider.saved!.refresh_token!,
    clientId: provider.info!.client_id,
    grantId: access.split(":")[1]!,
  };
}

const mcpStatus = async (token: string) =>
  (await rawPost(initializeBody(), { authorization: `Bearer ${token}` })).status;

const refresh = (refreshToken: string, clientId: string) =>
  workerFetch(`${BASE}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId }),
  });

describe("GET /me/oauth-grants", () => {
  it("lists the user's grants: client name and logo from its metadata, scopes, tenant, created, last used", async () => {
    const app = await connectApp("tenantUser", "read:locations read:reviews", XSS_NAME);
    const before = await w.as("tenantUser").get("/me/oauth-grants");
    expect(before.status).toBe(200);
    const listed = before.body.data.find((g: any) => g.id === app.grantId);
    expect(listed).toMatchObject({
      id: app.grantId,
      clientId: app.clientId,
      clientName: XSS_NAME,
      logoUri: LOGO,
      scopes: ["read:locations", "read:reviews"],
      tenantId: w.tenantA.id,
      tenantName: w.tenantA.name,
      agencySession: false,
      lastUsedAt: null,
    });
    expect(Date.now() - Date.parse(listed.createdAt)).toBeLessThan(5 * 60_000);

    // the first /mcp call with its token records the use; the next ones in the window do not write again
    expect(await mcpStatus(app.access)).toBe(200);
    const used = (await w.as("tenantUser").get("/me/oauth-grants")).body.data.find((g: any) => g.id === app.grantId);
    expect(Date.parse(used.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(listed.createdAt) - 1000);
    expect(Date.now() - Date.parse(used.lastUsedAt)).toBeLessThan(5 * 60_000);
    expect(await mcpStatus(app.access)).toBe(200);
    const again = (await w.as("tenantUser").get("/me/oauth-grants")).body.data.find((g: any) => g.id === app.grantId);
    expect(again.lastUsedAt).toBe(used.lastUsedAt);

    // another user sees none of it
    const other = await w.as("manager").get("/me/oauth-grants");
    expect(other.body.data.some((g: any) => g.id === app.grantId)).toBe(false);
  });

  it("is in the OpenAPI document with its operation ids", async () => {
    const doc = (await request("GET", "/docs/openapi.json")).body;
    expect(doc.paths["/me/oauth-grants"].get.operationId).toBe("listMyOAuthGrants");
    expect(doc.paths["/me/oauth-grants/{grantId}"].delete.operationId).toBe("revokeMyOAuthGrant");
    expect(doc.components.schemas.OAuthGrant.properties).toHaveProperty("lastUsedAt");
    expect(doc.components.schemas.OAuthGrant.properties).toHaveProperty("logoUri");
  });

  it("needs a user's session: an API key and an app's own OAuth token are refused", async () => {
    const app = await connectApp("tenantUser");
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    expect((await request("GET", "/me/oauth-grants", { token: key.token })).status).toBe(401);
    expect((await request("GET", "/me/oauth-grants", { token: app.access })).status).toBe(401);
    expect((await request("DELETE", `/me/oauth-grants/${app.grantId}`, { token: app.access })).status).toBe(401);
    expect((await request("GET", "/me/oauth-grants")).status).toBe(401);
  });
});

describe("DELETE /me/oauth-grants/{grantId}", () => {
  it("ends the access token (/mcp 401 at once) and the refresh token together, and audits it", async () => {
    const app = await connectApp("tenantUser");
    expect(await mcpStatus(app.access)).toBe(200);
    const del = await w.as("tenantUser").delete(`/me/oauth-grants/${app.grantId}`);
    expect(del.status).toBe(204);
    expect(await mcpStatus(app.access)).toBe(401);
    const refused = await refresh(app.refresh, app.clientId);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as any).error).toBe("invalid_grant");
    const list = await w.as("tenantUser").get("/me/oauth-grants");
    expect(list.body.data.some((g: any) => g.id === app.grantId)).toBe(false);
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "oauth_grant.revoked"), eq(auditEvents.resourceId, app.grantId)))
      .get();
    expect(audit).toMatchObject({ actorId: w.users.tenantUser.id, tenantId: w.tenantA.id });
    // a second revoke finds nothing
    expect((await w.as("tenantUser").delete(`/me/oauth-grants/${app.grantId}`)).status).toBe(404);
  });

  it("a grant acting for a shard-1 tenant: revoked, and its audit row is on that tenant's shard", async () => {
    const w1 = await createWorld({ shardA: 1 });
    const app = await connectApp("tenantUser", "read:locations", "Shard One App", w1);
    const listed = (await w1.as("tenantUser").get("/me/oauth-grants")).body.data;
    expect(listed.map((g: any) => [g.id, g.clientName, g.tenantId])).toEqual([
      [app.grantId, "Shard One App", w1.tenantA.id],
    ]);
    expect((await w1.as("tenantUser").delete(`/me/oauth-grants/${app.grantId}`)).status).toBe(204);
    expect(await mcpStatus(app.access)).toBe(401);
    const where = and(eq(auditEvents.action, "oauth_grant.revoked"), eq(auditEvents.resourceId, app.grantId));
    expect(await shardOf(w1.tenantA).select().from(auditEvents).where(where).get()).toMatchObject({
      actorId: w1.users.tenantUser.id,
      tenantId: w1.tenantA.id,
    });
    expect(await db().select().from(auditEvents).where(where).get()).toBeUndefined();
  });

  it("another user's grant id is 404 and the grant keeps working", async () => {
    const app = await connectApp("tenantUser");
    const res = await w.as("manager").delete(`/me/oauth-grants/${app.grantId}`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: "NOT_FOUND" });
    expect(await mcpStatus(app.access)).toBe(200);
    expect((await refresh(app.refresh, app.clientId)).status).toBe(200);
  });
});

// ---- the page

const PAGE = `${BASE}/account/connected-apps`;

async function signIn(email: string, password = TEST_PASSWORD) {
  const res = await workerFetch(`${PAGE}/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: BASE },
    body: new URLSearchParams({ email, password }),
  });
  const setCookie = (res.headers as unknown as { getSetCookie(): string[] }).getSetCookie();
  return { res, setCookie, cookie: setCookie.map((c) => c.split(";")[0]).join("; ") };
}

/**
 * The cookie of a session as the page's sign-in opens it (the same startBrowserSession, method password), without
 * its password check: for the tests about the page once signed in. The sign-in itself is the first two tests below;
 * each password check is scrypt at production cost (~0.3 s of CPU).
 */
async function signedIn(userId: string) {
  const { cookie } = await startBrowserSession(controlDb(env), env, userId, "password");
  return { cookie: cookie.split(";")[0]! };
}

const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1];

const revokeForm = (cookie: string, grantId: string, fields: Record<string, string>, headers = {}) =>
  workerFetch(`${PAGE}/${encodeURIComponent(grantId)}/revoke`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: BASE, cookie, ...headers },
    body: new URLSearchParams(fields),
  });

describe("/account/connected-apps", () => {
  it("asks to sign in first; a wrong password shows the form again with an error", async () => {
    const first = await workerFetch(PAGE);
    expect(first.status).toBe(200);
    const html = await first.text();
    expect(html).toContain("<h1>Sign in to see your connected apps</h1>");
    expect(html).toContain('<label for="email">Email</label>');
    const wrong = await signIn(w.users.tenantUser.email, "not the password");
    expect(wrong.res.status).toBe(401);
    expect(await wrong.res.text()).toContain("Invalid email or password.");
    expect(wrong.setCookie).toEqual([]);
  });

  it("signs in with a browser session cookie (HttpOnly, SameSite=Lax, 30 days; docs/sessions.md)", async () => {
    const { res, setCookie } = await signIn(w.users.tenantUser.email);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/account/connected-apps");
    expect(setCookie).toHaveLength(1);
    expect(setCookie[0]).toMatch(/^session=[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/);
  });

  it("lists the grants with the client's name as text, never markup", async () => {
    const app = await connectApp("tenantUser", "read:locations", XSS_NAME);
    const { cookie } = await signedIn(w.users.tenantUser.id);
    const res = await workerFetch(PAGE, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const html = await res.text();
    expect(html).toContain(`<h1 id="title" tabindex="-1">Connected apps</h1>`);
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt; Evil &amp; &quot;Co&quot;");
    expect(html).toContain(`action="/account/connected-apps/${app.grantId}/revoke"`);
    expect(html).toContain(w.tenantA.name);
    expect(html).toContain(`<code title="Read and search locations">read:locations</code>`);
    expect(html).toContain(`src="${LOGO}"`);
  });

  it("revokes with the form (CSRF token, redirect back) and the token is 401 on /mcp at once", async () => {
    const app = await connectApp("tenantUser", "read:locations", "Form Client");
    const { cookie } = await signedIn(w.users.tenantUser.id);
    const csrf = csrfOf(await (await workerFetch(PAGE, { headers: { cookie } })).text())!;
    expect(csrf).toBeTruthy();
    const res = await revokeForm(cookie, app.grantId, { csrf });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/account/connected-apps?revoked=1");
    expect(await mcpStatus(app.access)).toBe(401);
    expect((await refresh(app.refresh, app.clientId)).status).toBe(400);
    const after = await (await workerFetch(`${PAGE}?revoked=1`, { headers: { cookie } })).text();
    expect(after).toContain('role="status"');
    expect(after).toContain("App disconnected.");
    expect(after).not.toContain(app.grantId);
  });

  it("revokes from script (Accept: application/json) without a page load", async () => {
    const app = await connectApp("tenantUser", "read:locations", "Script Client");
    const { cookie } = await signedIn(w.users.tenantUser.id);
    const csrf = csrfOf(await (await workerFetch(PAGE, { headers: { cookie } })).text())!;
    const res = await revokeForm(cookie, app.grantId, { csrf }, { accept: "application/json" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ revoked: app.grantId, clientName: "Script Client" });
    expect(await mcpStatus(app.access)).toBe(401);
  });

  it("refuses a revoke without the CSRF token, with another session's token, or from another origin", async () => {
    const app = await connectApp("tenantUser", "read:locations", "Kept Client");
    const mine = await signedIn(w.users.tenantUser.id);
    const theirs = await signedIn(w.users.manager.id);
    const myCsrf = csrfOf(await (await workerFetch(PAGE, { headers: { cookie: mine.cookie } })).text())!;
    const theirCsrf = csrfOf(await (await workerFetch(PAGE, { headers: { cookie: theirs.cookie } })).text())!;

    const none = await revokeForm(mine.cookie, app.grantId, {});
    expect(none.status).toBe(403);
    expect(await none.text()).toContain("This form expired");
    expect((await revokeForm(mine.cookie, app.grantId, { csrf: theirCsrf })).status).toBe(403);
    expect(
      (await revokeForm(mine.cookie, app.grantId, { csrf: myCsrf }, { origin: "https://evil.example" })).status,
    ).toBe(403);
    expect(
      (await revokeForm(mine.cookie, app.grantId, { csrf: myCsrf }, { "sec-fetch-site": "cross-site" })).status,
    ).toBe(403);
    // no session cookie at all: back to sign-in
    const anonymous = await revokeForm("", app.grantId, { csrf: myCsrf });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get("location")).toBe("/account/connected-apps");
    expect(await mcpStatus(app.access)).toBe(200);
  });

  it("another user's grant id is 404 on the page too", async () => {
    const app = await connectApp("tenantUser", "read:locations", "Not Yours");
    const theirs = await signedIn(w.users.manager.id);
    const csrf = csrfOf(await (await workerFetch(PAGE, { headers: { cookie: theirs.cookie } })).text())!;
    const res = await revokeForm(theirs.cookie, app.grantId, { csrf });
    expect(res.status).toBe(404);
    expect(await mcpStatus(app.access)).toBe(200);
  });

  it("signs out: the session ends on the server and the cookie is cleared", async () => {
    const { cookie } = await signedIn(w.users.tenantUser.id);
    const csrf = csrfOf(await (await workerFetch(PAGE, { headers: { cookie } })).text())!;
    const res = await workerFetch(`${PAGE}/sign-out`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: BASE, cookie },
      body: new URLSearchParams({ csrf }),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("set-cookie")).toMatch(/^session=; Max-Age=0; Path=\//);
    // a copy of the old cookie opens nothing: the record ended
    const again = await workerFetch(PAGE, { headers: { cookie } });
    expect(await again.text()).toContain("<h1>Sign in to see your connected apps</h1>");
  });
});
