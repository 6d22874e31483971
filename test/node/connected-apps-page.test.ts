// The connected-apps page in a real browser: the run's shared Worker (test/setup/served-worker.ts), two
// apps connected through the real OAuth flow (registration, consent form, PKCE code exchange), then
// headless Chromium at phone width signing in and disconnecting one app with JavaScript off (form
// post, redirect) and one with it on (fetch, no reload). One app's registered name is markup.
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tenantApi } from "./helpers/api";
import { CHROMIUM, launchChromium } from "./helpers/browser";
import { sharedWorker } from "./helpers/worker-server";

/** an account of this file's own on the shared Worker, in this run only */
const EMAIL = `owner+${Date.now().toString(36)}@connected.test`;
const PASSWORD = "long enough password";
const REDIRECT = "http://localhost:33420/callback";
const XSS_NAME = `<img src=x onerror="window.__pwned=1"> Evil & "Co"`;

const server = { base: sharedWorker().url };
let browser: Browser;
let tenantId = "";

const hidden = (html: string, name: string) =>
  new RegExp(`name="${name}" value="([^"]+)"`)
    .exec(html)?.[1]
    ?.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)));

/** Registers an app and plays its whole OAuth flow as the owner: returns its tokens and client id. */
async function connectApp(name: string) {
  const base = server.base;
  const reg = await fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: name,
      logo_uri: "https://logo.example/app.png",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }),
  });
  expect(reg.status).toBe(201);
  const { client_id } = (await reg.json()) as { client_id: string };
  const verifier = randomBytes(32).toString("base64url");
  const authorize = new URL(`${base}/oauth/authorize`);
  for (const [k, v] of Object.entries({
    response_type: "code",
    client_id,
    redirect_uri: REDIRECT,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    scope: "read:locations read:reviews",
    resource: `${base}/mcp`,
  }))
    authorize.searchParams.set(k, v);
  const first = await fetch(authorize);
  const cookie = (first.headers as unknown as { getSetCookie(): string[] })
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const handle = hidden(await first.text(), "handle")!;
  const post = (fields: [string, string][]) =>
    fetch(authorize, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
    });
  const consent = await post([
    ["handle", handle],
    ["step", "signin"],
    ["email", EMAIL],
    ["password", PASSWORD],
  ]);
  const ticket = hidden(await consent.text(), "ticket")!;
  const done = await post([
    ["handle", handle],
    ["ticket", ticket],
    ["step", "consent"],
    ["tenant", tenantId],
    ["decision", "approve"],
    ["scope", "read:locations"],
    ["scope", "read:reviews"],
  ]);
  expect(done.status).toBe(302);
  const code = new URL(done.headers.get("location")!).searchParams.get("code")!;
  const token = await fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id,
      code_verifier: verifier,
      resource: `${base}/mcp`,
    }),
  });
  expect(token.status).toBe(200);
  const t = (await token.json()) as { access_token: string; refresh_token: string };
  return { access: t.access_token, refresh: t.refresh_token, clientId: client_id };
}

const mcpStatus = async (token: string) =>
  (
    await fetch(`${server.base}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      }),
    })
  ).status;

async function signIn(page: Page) {
  await page.goto(`${server.base}/account/connected-apps`);
  expect(await page.locator("h1").innerText()).toBe("Sign in to see your connected apps");
  await page.getByLabel("Email").fill(EMAIL);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForSelector("h1#title");
}

/** What the page's own scripts see, without the DOM library in this Node-side file. */
interface PageGlobals {
  __pwned?: number;
  __samePage?: boolean;
  document: { documentElement: { scrollWidth: number }; activeElement: { id: string } | null };
}

/** Nothing wider than the phone: the page never scrolls sideways. */
const noHorizontalScroll = async (page: Page) =>
  expect(
    await page.evaluate(() => (globalThis as unknown as PageGlobals).document.documentElement.scrollWidth),
  ).toBeLessThanOrEqual(375);

describe.skipIf(!existsSync(CHROMIUM))("connected apps page in headless Chromium", () => {
  beforeAll(async () => {
    ({ tenantId } = await tenantApi(server.base, {
      name: "Connected Dental",
      slug: `connected-${Date.now().toString(36)}`,
      email: EMAIL,
    }));
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
  });

  it("without JavaScript at phone width: lists the apps as text and disconnects one by form post", async () => {
    const evil = await connectApp(XSS_NAME);
    const plain = await connectApp("Form Only App");
    expect(await mcpStatus(plain.access)).toBe(200);
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 375, height: 740 } });
    const page = await context.newPage();
    await signIn(page);
    expect(await page.locator("h1").innerText()).toBe("Connected apps");
    expect(await page.locator(".who").innerText()).toContain(`Signed in as ${EMAIL}`);
    // the markup name is a heading's text; no element was made of it
    const headings = await page.getByRole("heading", { level: 2 }).allInnerTexts();
    expect(headings.sort()).toEqual(["Form Only App", XSS_NAME].sort());
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    const card = page.getByRole("listitem").filter({ hasText: "Form Only App" });
    expect(await card.locator("dd").allInnerTexts()).toEqual([
      "Connected Dental",
      "read:locations read:reviews",
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/),
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/),
    ]);
    expect(await page.getByRole("listitem").filter({ hasText: "Evil" }).locator("dd").last().innerText()).toBe("Never");
    await noHorizontalScroll(page);
    const button = page.getByRole("button", { name: "Disconnect Form Only App" });
    const box = (await button.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(44);
    expect(box.x + box.width).toBeLessThanOrEqual(375);
    await page.screenshot({ path: path.join(tmpdir(), "connected-apps-375.png"), fullPage: true });

    await button.click();
    await page.waitForURL("**/account/connected-apps?revoked=1");
    expect(await page.getByRole("status").innerText()).toBe("App disconnected.");
    expect(await page.getByRole("heading", { level: 2 }).allInnerTexts()).toEqual([XSS_NAME]);
    expect(await mcpStatus(plain.access)).toBe(401);
    expect(await mcpStatus(evil.access)).toBe(200);
    await noHorizontalScroll(page);
    await context.close();
  }, 120_000);

  it("with JavaScript: disconnects without a page load, announces it and moves focus to the heading", async () => {
    const scripted = await connectApp("Script App");
    const context = await browser.newContext({ viewport: { width: 375, height: 740 } });
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await signIn(page);
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).__pwned)).toBeUndefined();
    await page.evaluate(() => {
      (globalThis as unknown as PageGlobals).__samePage = true;
    });
    let navigations = 0;
    page.on("framenavigated", () => navigations++);
    await page.getByRole("button", { name: "Disconnect Script App" }).click();
    await page.getByRole("status").filter({ hasText: "Script App is disconnected." }).waitFor();
    expect(navigations).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).__samePage)).toBe(true);
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.id)).toBe("title");
    expect(await page.getByRole("heading", { level: 2 }).allInnerTexts()).not.toContain("Script App");
    expect(await mcpStatus(scripted.access)).toBe(401);
    // the last one: the list gives way to the empty state
    await page.getByRole("button", { name: `Disconnect ${XSS_NAME}` }).click();
    await page
      .getByRole("status")
      .filter({ hasText: `${XSS_NAME} is disconnected.` })
      .waitFor();
    expect(await page.getByText("No apps are connected.").isVisible()).toBe(true);
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
    await noHorizontalScroll(page);
    await context.close();
  }, 120_000);
});
