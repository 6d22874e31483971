// Connected apps (issue #35, item 4; #46 item 10): every OAuth grant of the signed-in user, listed and revoked
// over REST (/me/oauth-grants) and on the console's page /app/connected-apps (CSRF-protected forms); the old
// address /account/connected-apps redirects there.

import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "../../src/db/schema";
import { ConsoleBrowser, textOf } from "../console/helpers";
import { request } from "../helpers/http";
import { createWorld, db, shardOf, type World } from "../helpers/seed";
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

// ---- the page: the console's /app/connected-apps (the old /account/connected-apps redirects there)

const PAGE = "/app/connected-apps";

/** A person's console, signed in as the sign-in form's success signs in (test/console/helpers.ts). */
async function consoleOf(userId: string) {
  const b = new ConsoleBrowser();
  await b.seededSession(userId);
  return b;
}

describe("connected apps in the console", () => {
  it("the old address /account/connected-apps redirects to the console's page, which asks to sign in first", async () => {
    const old = await request("GET", "/account/connected-apps", { unchecked: true });
    expect(old.status).toBe(301);
    expect(old.headers.get("location")).toBe(PAGE);
    const page = await new ConsoleBrowser().get(PAGE);
    expect(page.status).toBe(303);
    expect(page.location).toBe(`/?next=${encodeURIComponent(PAGE)}`);
  });

  it("lists the person's grants with the client's name as text, never markup, and no other origin's logo", async () => {
    const app = await connectApp("tenantUser", "read:locations", XSS_NAME);
    const page = await (await consoleOf(w.users.tenantUser.id)).get(PAGE);
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.text).not.toContain("<img src=x");
    expect(page.text).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt; Evil &amp; &quot;Co&quot;");
    expect(page.text).toContain(`action="${PAGE}/${app.grantId}/revoke"`);
    expect(textOf(page.text)).toContain(`${XSS_NAME} Client ${app.clientId} ${w.tenantA.name} read:locations`);
    expect(page.text).toContain('title="Read and search locations"');
    expect(page.text).not.toContain(LOGO);
    // another person's page does not show it
    expect((await (await consoleOf(w.users.manager.id)).get(PAGE)).text).not.toContain(app.grantId);
  });

  it("disconnects with the form: the token is 401 on /mcp at once and the refresh token is refused", async () => {
    const app = await connectApp("tenantUser", "read:locations", "Form Client");
    const b = await consoleOf(w.users.tenantUser.id);
    await b.get(PAGE);
    const res = await b.post(`${PAGE}/${app.grantId}/revoke`);
    expect(res.status).toBe(303);
    expect(res.location).toBe(PAGE);
    expect(await mcpStatus(app.access)).toBe(401);
    expect((await refresh(app.refresh, app.clientId)).status).toBe(400);
    const after = await b.follow(res);
    expect(textOf(after.text)).toContain("Form Client is disconnected: its next request is refused.");
    expect(after.text).not.toContain(app.grantId);
  });

  it("refuses a disconnect without the CSRF token, with another session's token, or from another origin", async () => {
    const app = await connectApp("tenantUser", "read:locations", "Kept Client");
    const mine = await consoleOf(w.users.tenantUser.id);
    const theirs = await consoleOf(w.users.manager.id);
    await mine.get(PAGE);
    await theirs.get(PAGE);
    const path = `${PAGE}/${app.grantId}/revoke`;
    const none = await mine.post(path, {}, { csrf: "" });
    expect(none.status).toBe(403);
    expect(textOf(none.text)).toContain("nothing was changed");
    expect((await mine.post(path, {}, { csrf: theirs.csrf })).status).toBe(403);
    expect((await mine.post(path, {}, { origin: "https://evil.example" })).status).toBe(403);
    // signed out: to the sign-in page, nothing changed
    const anonymous = await new ConsoleBrowser().post(path, {}, { csrf: mine.csrf });
    expect(anonymous.status).toBe(303);
    expect(await mcpStatus(app.access)).toBe(200);
  });

  it("another person's grant id is the 404 page, and the grant keeps working", async () => {
    const app = await connectApp("tenantUser", "read:locations", "Not Yours");
    const theirs = await consoleOf(w.users.manager.id);
    await theirs.get(PAGE);
    const res = await theirs.post(`${PAGE}/${app.grantId}/revoke`);
    expect(res.status).toBe(404);
    expect(await mcpStatus(app.access)).toBe(200);
  });
});
