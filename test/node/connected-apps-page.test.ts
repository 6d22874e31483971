// The console's connected-apps page in a real browser: the run's shared Worker (test/setup/served-worker.ts),
// apps connected through the real OAuth flow (registration, consent form, PKCE code exchange), then headless
// Chromium at phone width opening the old address /account/connected-apps (a mailed link), signing in on the
// console and disconnecting apps by form post, with JavaScript off and on. One app's registered name is markup.
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

/** The old address, as mails before the console named it: it leads to the console's sign-in, then the page. */
async function signIn(page: Page) {
  await page.goto(`${server.base}/account/connected-apps`);
  expect(new URL(page.url()).pathname).toBe("/");
  await page.getByLabel("Email").fill(EMAIL);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${server.base}/app/connected-apps`);
  expect(await page.locator("h1").innerText()).toBe("Connected apps");
}

/** What the page's own scripts see, without the DOM library in this Node-side file. */
interface PageGlobals {
  __pwned?: number;
  document: { documentElement: { scrollWidth: number } };
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
    // the markup name is a row header's text; no element was made of it
    const names = await page
      .locator("table.rows tbody th")
      .evaluateAll((ths) => ths.map((th) => (th.childNodes[0]?.textContent ?? "").trim()));
    expect(names.sort()).toEqual(["Form Only App", XSS_NAME].sort());
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    const row = page.getByRole("row").filter({ hasText: "Form Only App" });
    expect(await row.locator("td").allInnerTexts()).toEqual([
      "Connected Dental",
      expect.stringMatching(/read:locations\s+read:reviews/),
      expect.stringMatching(/ \d{4}, \d{1,2}:\d\d [AP]M UTC$/),
      expect.stringMatching(/ \d{4}, \d{1,2}:\d\d [AP]M UTC$/),
      "Disconnect",
    ]);
    expect(await page.getByRole("row").filter({ hasText: "Evil" }).locator("td").nth(3).innerText()).toBe("never");
    await noHorizontalScroll(page);
    const button = page.getByRole("button", { name: "Disconnect Form Only App" });
    const box = (await button.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(44);
    expect(box.x + box.width).toBeLessThanOrEqual(375);
    await page.screenshot({ path: path.join(tmpdir(), "connected-apps-375.png"), fullPage: true });

    await button.click();
    await page.waitForURL(`${server.base}/app/connected-apps`);
    expect(await page.getByRole("status").first().innerText()).toBe(
      "Form Only App is disconnected: its next request is refused.",
    );
    expect(await page.getByRole("row").filter({ hasText: "Form Only App" }).count()).toBe(0);
    expect(await mcpStatus(plain.access)).toBe(401);
    expect(await mcpStatus(evil.access)).toBe(200);
    await noHorizontalScroll(page);
    await context.close();
  }, 120_000);

  it("with JavaScript: the markup name runs nothing, and the last app disconnected leaves the empty state", async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 740 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    page.on("pageerror", (e) => errors.push(e.message));
    const dialogs: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await signIn(page);
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).__pwned)).toBeUndefined();
    await page.getByRole("button", { name: `Disconnect ${XSS_NAME}` }).click();
    await page.getByRole("status").filter({ hasText: "is disconnected" }).waitFor();
    expect(await page.locator("main").innerText()).toContain("No app is connected.");
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(errors, errors.join("\n")).toEqual([]);
    await noHorizontalScroll(page);
    await context.close();
  }, 120_000);
});
