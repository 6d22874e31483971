// The alert-email unsubscribe page in a real browser: the run's shared Worker (test/setup/served-worker.ts),
// headless Chromium opening a digest's unsubscribe link and confirming.
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BENCH_JWT_SECRET } from "../../bench/lib/server.mjs";
import { mintAlertUnsubscribeToken } from "../../src/modules/alerts/tokens";
import { tenantApi } from "./helpers/api";
import { CHROMIUM, launchChromium } from "./helpers/browser";
import { sharedWorker } from "./helpers/worker-server";

describe.skipIf(!existsSync(CHROMIUM))("alert unsubscribe page in headless Chromium", () => {
  const worker = sharedWorker();
  let browser: Browser;
  let digestUrl: string;
  let subscriptionUrl: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    const tenant = await tenantApi(worker.url, {
      name: "Acme Dental",
      slug: `acme-alerts-${Date.now().toString(36)}`,
      email: "olivia@acme.test",
      adminName: "Olivia",
    });
    headers = { "content-type": "application/json", ...tenant.auth };
    const call = (method: string, p: string, body?: unknown) =>
      fetch(`${worker.url}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }).then(
        (r) => r.json(),
      ) as Promise<any>;
    const location = await call("POST", "/v1/locations", { name: "Downtown", timezone: "America/New_York" });
    const sub = await call("POST", "/v1/alert-subscriptions", {
      locationId: location.id,
      instantEmail: false,
      digestFrequency: "daily",
    });
    expect(sub).toMatchObject({ digestFrequency: "daily", timeZone: "America/New_York" });
    subscriptionUrl = `${worker.url}/v1/alert-subscriptions/${sub.id}`;
    const token = await mintAlertUnsubscribeToken(BENCH_JWT_SECRET, {
      tenantId: tenant.tenantId,
      subscriptionId: sub.id,
      kind: "digest",
    });
    digestUrl = `${worker.url}/alerts/unsubscribe/${token}`;
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
  });

  it("asks, confirms with one button and shows the result, on a phone-sized screen without JavaScript", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 375, height: 667 } });
    const page = await context.newPage();
    const res = await page.goto(digestUrl);
    expect(res!.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(await page.getAttribute("html", "lang")).toBe("en");
    expect(await page.textContent("h1")).toBe("Stop review digest emails?");
    expect(await page.textContent("main")).toContain("for Downtown to ol***@acme.test");
    const button = page.getByRole("button", { name: "Unsubscribe" });
    const box = (await button.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(44);
    expect(box.x + box.width).toBeLessThanOrEqual(375);

    await button.click();
    await page.waitForLoadState();
    expect(await page.textContent("h1")).toBe("You are unsubscribed");
    expect(await page.getByRole("status").textContent()).toBe(
      "You will no longer receive review digest emails for Downtown to ol***@acme.test.",
    );
    const screenshot = path.join(tmpdir(), "alert-unsubscribe-confirmed.png");
    await page.screenshot({ path: screenshot, fullPage: true });
    console.log(`screenshot: ${screenshot}`);
    await context.close();

    const sub = await fetch(subscriptionUrl, { headers }).then((r) => r.json());
    expect(sub).toMatchObject({
      digestFrequency: "none",
      nextDigestAt: null,
      digestUnsubscribedAt: expect.any(String),
      instantEmail: false,
    });
  }, 60_000);

  it("a forged link is a 404 page", async () => {
    const res = await fetch(`${digestUrl.slice(0, -4)}AAAA`);
    expect(res.status).toBe(404);
  });
});
