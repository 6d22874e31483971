// The MCP server as real clients meet it: a network server (the built Worker in workerd via
// Miniflare), the stdio bridge as a child process, and the OAuth consent page in headless Chromium.
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BOOTSTRAP_SECRET_HEADER } from "../../bench/lib/server.mjs";
import { CHROMIUM, launchChromium } from "./helpers/browser";
import { startWorker } from "./helpers/worker-server";

const IDLE_SECONDS = 3;
const REDIRECT = "http://localhost:33419/callback";
const PASSWORD = "correct horse battery";
const root = path.resolve(import.meta.dirname, "../..");

let server: Awaited<ReturnType<typeof startWorker>>;
let token = "";
let tenantId = "";
/** a real API key limited to read:locations, as a desktop user would paste into the bridge config */
let apiKey = "";
/** the browser test app's registration, reused by the incremental consent test */
let browserClientId = "";

const structured = (r: unknown) => (r as { structuredContent: any }).structuredContent;

beforeAll(async () => {
  // sessions idle out after 3 s here, so the bridge's transparent re-initialize can be seen
  server = await startWorker({ vars: { MCP_SESSION_IDLE_SECONDS: String(IDLE_SECONDS) } });
  const boot = await fetch(`${server.base}/bootstrap`, {
    method: "POST",
    headers: { "content-type": "application/json", ...BOOTSTRAP_SECRET_HEADER },
    body: JSON.stringify({
      tenantName: "Live Dental",
      tenantSlug: "live-dental",
      adminEmail: "owner@live.test",
      adminPassword: PASSWORD,
      adminName: "Owner",
    }),
  });
  const body = (await boot.json()) as { token: string; tenant: { id: string } };
  token = body.token;
  tenantId = body.tenant.id;
  for (const loc of [
    { name: "Live Downtown", city: "Springfield", latitude: 39.7817, longitude: -89.6501 },
    { name: "Live Chatham", city: "Chatham", latitude: 39.6761, longitude: -89.7043 },
  ]) {
    const res = await fetch(`${server.base}/v1/locations`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "x-tenant-id": tenantId },
      body: JSON.stringify(loc),
    });
    expect(res.status).toBe(201);
  }
  const minted = await fetch(`${server.base}/v1/api-keys`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "x-tenant-id": tenantId },
    body: JSON.stringify({ name: "desktop bridge", scopes: ["read:locations"] }),
  });
  expect(minted.status).toBe(201);
  apiKey = ((await minted.json()) as { key: string }).key;
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

describe("stdio bridge (bin/reputation-mcp.mjs)", () => {
  it("speaks JSON-RPC on stdin/stdout and forwards to the remote /mcp", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(root, "bin/reputation-mcp.mjs"), "--url", `${server.base}/mcp`],
      env: { ...(process.env as Record<string, string>), REPUTATION_API_KEY: apiKey },
      stderr: "pipe",
    });
    const client = new Client({ name: "desktop-via-stdio", version: "1.0.0" });
    let bridgeLog = "";
    transport.stderr?.on("data", (chunk: Buffer) => (bridgeLog += chunk.toString()));
    await client.connect(transport);
    expect(client.getServerVersion()).toMatchObject({ name: "reputation-ops" });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(["location.finder", "location.list", "location.review-links", "white-label.get"]);
    const near = structured(
      await client.callTool({ name: "location.finder", arguments: { lat: 39.78, lng: -89.65, radiusKm: 25 } }),
    );
    expect(near.data.map((l: { name: string }) => l.name)).toEqual(["Live Downtown", "Live Chatham"]);

    // the remote session expires; the bridge re-initializes and the desktop client notices nothing
    await new Promise((r) => setTimeout(r, (IDLE_SECONDS + 1) * 1000));
    const later = structured(await client.callTool({ name: "location.list", arguments: {} }));
    expect(later.total).toBe(2);
    expect(bridgeLog).toContain("remote session re-initialized");
    await client.close();
  }, 60_000);

  it("refuses to start without a URL and key", async () => {
    const { spawnSync } = await import("node:child_process");
    const run = spawnSync(process.execPath, [path.join(root, "bin/reputation-mcp.mjs")], {
      encoding: "utf8",
      env: { PATH: process.env.PATH },
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("usage: reputation-mcp");
  });
});

describe.skipIf(!existsSync(CHROMIUM))("OAuth consent page in headless Chromium", () => {
  it("signs in, shows scopes and tenant, allows, and the code works with PKCE", async () => {
    const reg = await fetch(`${server.base}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Browser Test App",
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
      }),
    });
    expect(reg.status).toBe(201);
    const { client_id } = (await reg.json()) as { client_id: string };
    browserClientId = client_id;
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const authorize = new URL(`${server.base}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      response_type: "code",
      client_id,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
      scope: "read:locations read:reviews",
      state: "st-123",
      resource: `${server.base}/mcp`,
    }))
      authorize.searchParams.set(k, v);

    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      let callback: URL | null = null;
      await page.route(`${REDIRECT}**`, async (route) => {
        callback = new URL(route.request().url());
        await route.fulfill({ status: 200, contentType: "text/plain", body: "connected" });
      });
      await page.goto(authorize.href);
      expect(await page.locator("h1").innerText()).toContain("Connect Browser Test App");
      expect(await page.locator("body").innerText()).toContain("read:locations");
      expect(await page.locator("body").innerText()).toContain("an app on your computer");
      await page.fill("#email", "owner@live.test");
      await page.fill("#password", PASSWORD);
      await page.click("button[type=submit]");
      await page.waitForSelector("select#tenant");
      expect(await page.locator("body").innerText()).toContain("Signed in as owner@live.test");
      expect(await page.locator("select#tenant option").allTextContents()).toEqual(["Live Dental"]);
      expect(await page.isChecked('input[value="read:locations"]')).toBe(true);
      expect(await page.isChecked('input[value="write:contacts"]')).toBe(false);
      await page.screenshot({ path: path.join(tmpdir(), "reputation-ops-oauth-consent.png"), fullPage: true });
      await page.uncheck('input[value="read:reviews"]');
      await page.click('button[value="approve"]');
      await page.waitForURL(`${REDIRECT}**`);
      expect(callback).not.toBeNull();
      const cb = callback as unknown as URL;
      expect(cb.searchParams.get("state")).toBe("st-123");
      expect(cb.searchParams.get("iss")).toBe(server.base);

      const tokenRes = await fetch(`${server.base}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: cb.searchParams.get("code")!,
          redirect_uri: REDIRECT,
          client_id,
          code_verifier: verifier,
          resource: `${server.base}/mcp`,
        }),
      });
      expect(tokenRes.status).toBe(200);
      const tokens = (await tokenRes.json()) as { access_token: string; scope: string; expires_in: number };
      expect(tokens).toMatchObject({ scope: "read:locations", expires_in: 3600 });

      const client = new Client({ name: "browser-authorized", version: "1" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } },
        }),
      );
      const page1 = structured(await client.callTool({ name: "location.list", arguments: {} }));
      expect(page1.total).toBe(2);
      await client.close();
    } finally {
      await browser.close();
    }
  }, 120_000);

  it("incremental consent: the same app asking later for a write scope sees a page for just that scope", async () => {
    expect(browserClientId).not.toBe("");
    const verifier = randomBytes(32).toString("base64url");
    const authorize = new URL(`${server.base}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      response_type: "code",
      client_id: browserClientId,
      redirect_uri: REDIRECT,
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      scope: "write:contacts",
      state: "st-456",
      resource: `${server.base}/mcp`,
    }))
      authorize.searchParams.set(k, v);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      let callback: URL | null = null;
      await page.route(`${REDIRECT}**`, async (route) => {
        callback = new URL(route.request().url());
        await route.fulfill({ status: 200, contentType: "text/plain", body: "connected" });
      });
      await page.goto(authorize.href);
      await page.fill("#email", "owner@live.test");
      await page.fill("#password", PASSWORD);
      await page.click("button[type=submit]");
      await page.waitForSelector("select#tenant");
      expect(await page.locator("#granted").innerText()).toContain("It already has: read:locations");
      // only the added scope is offered, ticked; nothing already granted is asked again
      expect(
        await page
          .locator('input[name="scope"]')
          .evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value)),
      ).toEqual(["write:contacts"]);
      expect(await page.isChecked('input[value="write:contacts"]')).toBe(true);
      expect(await page.locator("legend").innerText()).toBe("Also allow it to");
      await page.screenshot({ path: path.join(tmpdir(), "reputation-ops-oauth-incremental.png"), fullPage: true });
      await page.click('button[value="approve"]');
      await page.waitForURL(`${REDIRECT}**`);
      const cb = callback as unknown as URL;
      expect(cb.searchParams.get("iss")).toBe(server.base);
      const tokenRes = await fetch(`${server.base}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: cb.searchParams.get("code")!,
          redirect_uri: REDIRECT,
          client_id: browserClientId,
          code_verifier: verifier,
          resource: `${server.base}/mcp`,
        }),
      });
      const tokens = (await tokenRes.json()) as { scope: string };
      expect(tokens.scope.split(" ").sort()).toEqual(["read:locations", "write:contacts"]);
    } finally {
      await browser.close();
    }
  }, 120_000);

  it("/mcp/readonly: the page offers read scopes only, and the token holds only what it grants", async () => {
    expect(browserClientId).not.toBe("");
    const verifier = randomBytes(32).toString("base64url");
    const authorize = new URL(`${server.base}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      response_type: "code",
      client_id: browserClientId,
      redirect_uri: REDIRECT,
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      scope: "read:locations write:contacts",
      state: "st-789",
      resource: `${server.base}/mcp/readonly`,
    }))
      authorize.searchParams.set(k, v);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      let callback: URL | null = null;
      await page.route(`${REDIRECT}**`, async (route) => {
        callback = new URL(route.request().url());
        await route.fulfill({ status: 200, contentType: "text/plain", body: "connected" });
      });
      await page.goto(authorize.href);
      expect(await page.locator("body").innerText()).not.toContain("write:contacts");
      await page.fill("#email", "owner@live.test");
      await page.fill("#password", PASSWORD);
      await page.click("button[type=submit]");
      await page.waitForSelector("select#tenant");
      const offered = await page
        .locator('input[name="scope"]')
        .evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value));
      expect(offered.length).toBeGreaterThan(0);
      expect(offered.filter((s) => !s.startsWith("read:"))).toEqual([]);
      // the grant of /mcp (write:contacts, the test above) is not shown as carried over
      expect(await page.locator("body").innerText()).not.toContain("write:contacts");
      await page.screenshot({ path: path.join(tmpdir(), "reputation-ops-oauth-readonly.png"), fullPage: true });
      for (const s of offered)
        if (s !== "read:locations" && (await page.isChecked(`input[value="${s}"]`)))
          await page.uncheck(`input[value="${s}"]`);
      if (!(await page.isChecked('input[value="read:locations"]'))) await page.check('input[value="read:locations"]');
      await page.click('button[value="approve"]');
      await page.waitForURL(`${REDIRECT}**`);
      const cb = callback as unknown as URL;
      const tokenRes = await fetch(`${server.base}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: cb.searchParams.get("code")!,
          redirect_uri: REDIRECT,
          client_id: browserClientId,
          code_verifier: verifier,
          resource: `${server.base}/mcp/readonly`,
        }),
      });
      expect(tokenRes.status).toBe(200);
      expect(((await tokenRes.json()) as { scope: string }).scope).toBe("read:locations");
    } finally {
      await browser.close();
    }
  }, 120_000);
});
