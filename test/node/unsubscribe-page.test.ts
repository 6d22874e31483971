// The unsubscribe page in a real browser: the run's shared Worker (test/setup/served-worker.ts),
// headless Chromium opening the link from an email, confirming, and resubscribing. No JS on the page.
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BENCH_JWT_SECRET } from "../../bench/lib/server.mjs";
import { mintLinkToken, mintUnsubscribeToken } from "../../src/modules/links/tokens";
import { tenantApi } from "./helpers/api";
import { CHROMIUM, launchChromium } from "./helpers/browser";
import { sharedWorker } from "./helpers/worker-server";

describe.skipIf(!existsSync(CHROMIUM))("unsubscribe page in headless Chromium", () => {
  const worker = sharedWorker();
  let browser: Browser;
  let contactId: string;
  let unsubscribeUrl: string;
  let logoHost: Server;

  beforeAll(async () => {
    // a stand-in for the brand's own site serving its logo
    logoHost = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "image/svg+xml" });
      res.end(
        `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><rect width="40" height="40" rx="8" fill="#2453d6"/><text x="48" y="27" font-family="sans-serif" font-size="18">Acme</text></svg>`,
      );
    });
    await new Promise<void>((r) => logoHost.listen(0, "127.0.0.1", r));
    const logoUrl = `http://127.0.0.1:${(logoHost.address() as AddressInfo).port}/logo.svg`;
    const run = Date.now().toString(36);
    const tenant = await tenantApi(worker.url, {
      name: "Acme Dental",
      slug: `acme-dental-${run}`,
      email: "admin@acme.test",
      adminName: "Admin",
    });
    const headers = { "content-type": "application/json", ...tenant.auth };
    const call = (method: string, p: string, body?: unknown) =>
      fetch(`${worker.url}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }).then(
        (r) => r.json(),
      ) as Promise<any>;
    const brand = (await call("GET", "/v1/brands")).data[0];
    const patched = await call("PATCH", `/v1/brands/${brand.id}`, { logoUrl });
    expect(patched.logoUrl).toBe(logoUrl);
    const location = await call("POST", "/v1/locations", { name: "Downtown" });
    const contact = await call("POST", "/v1/contacts", { email: "jane.doe@example.test", firstName: "Jane" });
    contactId = contact.id;
    const solicitationId = `sol_browser_${run}`;
    const shortLink = await mintLinkToken(BENCH_JWT_SECRET, {
      solicitationId,
      tenantId: tenant.tenantId,
      locationId: location.id,
      destination: "auto",
    });
    const now = new Date().toISOString();
    await worker.db
      .prepare(
        `insert into solicitations (id, tenant_id, location_id, contact_id, channel, status, short_link_token, idempotency_key, metadata, sent_at, created_at, updated_at)
         values (?, ?, ?, ?, 'email', 'SENT', ?, ?, '{}', ?, ?, ?)`,
      )
      .bind(solicitationId, tenant.tenantId, location.id, contact.id, shortLink, solicitationId, now, now, now)
      .run();
    const token = await mintUnsubscribeToken(BENCH_JWT_SECRET, {
      tenantId: tenant.tenantId,
      contactId: contact.id,
      channel: "email",
      solicitationId,
    });
    unsubscribeUrl = `${worker.url}/unsubscribe/${token}`;
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    logoHost?.close();
  });

  it("asks, confirms with one button, shows the confirmation and resubscribes, on a phone-sized screen without JavaScript", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 375, height: 667 } });
    const page = await context.newPage();
    await page.goto(unsubscribeUrl);
    expect(await page.textContent("h1")).toBe("Unsubscribe from emails from Acme Dental?");
    expect(await page.textContent("main")).toContain("ja***@example.test");
    expect(await page.getAttribute("header img", "alt")).toBe("Acme Dental logo");
    expect(await page.$eval("header img", (img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(
      120,
    );
    const button = page.getByRole("button", { name: "Unsubscribe" });
    const box = (await button.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(44); // a comfortable touch target
    expect(box.x + box.width).toBeLessThanOrEqual(375);

    await button.click();
    await page.waitForLoadState();
    expect(await page.textContent("h1")).toBe("You are unsubscribed");
    expect(await page.getByRole("status").textContent()).toContain(
      "You will no longer receive emails from Acme Dental at ja***@example.test.",
    );
    const screenshot = path.join(tmpdir(), "unsubscribe-confirmed.png");
    await page.screenshot({ path: screenshot, fullPage: true });
    console.log(`screenshot: ${screenshot}`);

    const state = await fetch(unsubscribeUrl, { headers: { accept: "application/json" } }).then((r) => r.json());
    expect(state).toMatchObject({ channel: "email", subscribed: false });
    const consent = await worker.db
      .prepare("select status, source from consent_records where contact_id = ? order by seq")
      .bind(contactId)
      .all();
    expect(consent.results).toEqual([{ status: "revoked", source: "unsubscribe" }]);

    await page.getByRole("button", { name: "Resubscribe" }).click();
    await page.waitForLoadState();
    expect(await page.textContent("h1")).toBe("You are subscribed again");
    await context.close();
  }, 60_000);

  it("takes the RFC 8058 one-click POST a mail provider sends (no cookies, no page)", async () => {
    const res = await fetch(unsubscribeUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(res.status).toBe(200);
    const consent = await worker.db
      .prepare("select status, source from consent_records where contact_id = ? order by seq")
      .bind(contactId)
      .all();
    expect(consent.results.at(-1)).toEqual({ status: "revoked", source: "unsubscribe" });
  });
});
