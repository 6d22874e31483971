// The white label in a real browser: the built Worker served from workerd (bench/lib/server.mjs), headless
// Chromium opening a feedback link and an unsubscribe link on the agency's custom hostname (resolved to
// the local Worker with --host-resolver-rules), JavaScript off, phone-sized. The pages must show the
// agency's name, logo and colours, escape what the agency typed, and still work.
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Browser, type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BENCH_JWT_SECRET } from "../../bench/lib/server.mjs";
import { mintLinkToken, mintUnsubscribeToken } from "../../src/modules/links/tokens";
import { platformAdminApi, tenantApi } from "./helpers/api";
import { CHROMIUM, CHROMIUM_LAUNCH_ARGS } from "./helpers/browser";
import { sharedWorker } from "./helpers/worker-server";

/** the browser's window inside page.evaluate (the test project has no DOM lib; types are erased) */
type Win = {
  getComputedStyle(e: unknown): Record<string, string>;
  document: { body: unknown; documentElement: { scrollWidth: number } };
};
/** the agency's custom hostname, this run's own (the browser resolves every *.northwind.test to the Worker) */
const HOST = `reviews-${Date.now().toString(36)}.northwind.test`;
/** a remote logo stored by PUT: never loaded (pages show only an uploaded logo, from our origin) */
const REMOTE_LOGO = "https://cdn.northwind.test/logo.svg";
/** the agency's uploaded logo: a real 1x1 PNG */
const PNG_1PX = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);
let logoUrl: string;
const BRAND_NAME = "Northwind <b>Reviews</b>";

describe.skipIf(!existsSync(CHROMIUM))("white-labelled public pages in headless Chromium", () => {
  // the run's shared Worker: the white label is an agency of this file's own, with a tenant of its own
  const worker = sharedWorker();
  const { port } = worker;
  let browser: Browser;
  let feedbackToken: string;
  let unsubscribeToken: string;
  let foreignToken: string;
  let foreignSlug: string;
  let solicitationId: string;

  beforeAll(async () => {
    const run = Date.now().toString(36);
    // the platform's admin makes the agency and, for the test's neighbour, another agency with a tenant
    const platform = platformAdminApi(worker.url);
    const northwind = await platform("/admin/agencies", {
      method: "POST",
      body: JSON.stringify({ name: "Northwind", slug: `northwind-${run}` }),
    });
    const { api, tenantId } = await tenantApi(worker.url, {
      name: "Smile Dental",
      slug: `smile-dental-${run}`,
      email: `owner.${run}@smile-white-label.test`,
      agencyId: northwind.id,
    });
    const agencyId = northwind.id as string;
    await platform(`/agency/agencies/${agencyId}/branding`, {
      method: "PUT",
      body: JSON.stringify({
        name: BRAND_NAME,
        logoUrl: REMOTE_LOGO,
        primaryColor: "#0F766E",
        accentColor: "#f59e0b",
        supportEmail: "help@northwind.test",
      }),
    });
    // the agency uploads its logo (multipart), which replaces the remote one
    const form = new FormData();
    form.append("file", new Blob([PNG_1PX], { type: "image/png" }), "logo.png");
    const uploaded = await fetch(`${worker.url}/agency/agencies/${agencyId}/branding/logo`, {
      method: "POST",
      headers: { authorization: `Bearer ${process.env.SERVED_WORKER_ADMIN_TOKEN}` },
      body: form,
    });
    expect(uploaded.status).toBe(200);
    logoUrl = ((await uploaded.json()) as { logoUrl: string }).logoUrl;
    expect(logoUrl).toMatch(/^\/brand-logos\/[a-z0-9]+\.png$/);
    // the hostname as the status sweep leaves it once Cloudflare reports it active and the ownership TXT record was found
    const now = new Date().toISOString();
    await worker.db
      .prepare(`insert into custom_hostnames (id, scope, scope_id, agency_id, hostname, provider_id, status, ssl_status, verification, ownership_token, verified_at, activated_at, last_checked_at, created_at, updated_at)
        values (?, 'agency', ?, ?, ?, ?, 'active', 'active', '{}', 'rops-verify=test', ?, ?, ?, ?, ?)`)
      .bind(`ch_${run}`, agencyId, agencyId, HOST, `cf_${run}`, now, now, now, now, now)
      .run();
    const location = await api("/v1/locations", {
      method: "POST",
      body: JSON.stringify({ name: "Smile Downtown", googlePlaceId: "ChIJ-smile" }),
    });
    const contact = await api("/v1/contacts", {
      method: "POST",
      body: JSON.stringify({ email: "pat@example.test", firstName: "Pat" }),
    });
    solicitationId = `sol_white_label_${run}`;
    feedbackToken = await mintLinkToken(BENCH_JWT_SECRET, {
      solicitationId,
      tenantId,
      locationId: location.id,
      destination: "feedback",
    });
    await worker.db
      .prepare(`insert into solicitations (id, tenant_id, location_id, contact_id, channel, status, short_link_token, idempotency_key, metadata, sent_at, created_at, updated_at)
        values (?, ?, ?, ?, 'email', 'SENT', ?, ?, '{}', ?, ?, ?)`)
      .bind(solicitationId, tenantId, location.id, contact.id, feedbackToken, solicitationId, now, now, now)
      .run();
    unsubscribeToken = await mintUnsubscribeToken(BENCH_JWT_SECRET, {
      tenantId,
      contactId: contact.id,
      channel: "email",
      solicitationId,
    });

    // a tenant of another agency (no white label), whose links the agency's host must refuse
    const other = await platform("/admin/agencies", {
      method: "POST",
      body: JSON.stringify({ name: "Other agency", slug: `other-agency-${run}` }),
    });
    const otherTenant = await platform("/agency/tenants", {
      method: "POST",
      body: JSON.stringify({ name: "Elsewhere", slug: `elsewhere-${run}`, agencyId: other.id }),
    });
    const otherLocation = await platform(`/agency/tenants/${otherTenant.id}/locations`, {
      method: "POST",
      body: JSON.stringify({ name: "Elsewhere Main" }),
    });
    foreignToken = await mintLinkToken(BENCH_JWT_SECRET, {
      solicitationId: `sol_foreign_${run}`,
      tenantId: otherTenant.id,
      locationId: otherLocation.id,
      destination: "feedback",
    });
    // and one of its review links (/l/{slug}), which the agency's host must refuse as well
    const asOther = { "x-tenant-id": otherTenant.id };
    const reviewed = await platform("/v1/locations", {
      method: "POST",
      headers: asOther,
      body: JSON.stringify({ name: "Elsewhere Reviews", googlePlaceId: "ChIJ-elsewhere" }),
    });
    foreignSlug = (
      await platform("/v1/review-links", {
        method: "POST",
        headers: asOther,
        body: JSON.stringify({ locationId: reviewed.id, weights: { google: 1 } }),
      })
    ).slug as string;

    // a browser of its own: the run's shared one cannot take a resolver rule for this file's hostname
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [...CHROMIUM_LAUNCH_ARGS, "--host-resolver-rules=MAP *.northwind.test 127.0.0.1"],
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
  });

  /** A phone without JavaScript. */
  async function phone(): Promise<BrowserContext> {
    return browser.newContext({ javaScriptEnabled: false, viewport: { width: 375, height: 667 } });
  }

  const at = (p: string) => `http://${HOST}:${port}${p}`;

  it("the feedback page on the custom hostname shows the agency's name, logo and colours, and still takes feedback", async () => {
    const context = await phone();
    const page = await context.newPage();
    const res = await page.goto(at(`/f/${feedbackToken}`));
    expect(res!.status()).toBe(200);
    expect(await page.textContent("h1")).toBe("How was your visit to Smile Downtown?");
    // the name is text, not markup
    expect(await page.textContent("footer.wl .wl-name")).toBe(BRAND_NAME);
    expect(await page.$$("footer.wl b")).toHaveLength(0);
    // the uploaded logo, served on the custom host itself (the agency's resource, through the host guard)
    expect(await page.getAttribute("footer.wl img", "src")).toBe(logoUrl);
    expect(await page.$eval("footer.wl img", (img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(
      1,
    );
    expect(await page.getAttribute('footer.wl a[href^="mailto:"]', "href")).toBe("mailto:help@northwind.test");
    const button = page.getByRole("button", { name: "Send feedback" });
    expect(await button.evaluate((b) => (globalThis as unknown as Win).getComputedStyle(b).backgroundColor)).toBe(
      "rgb(15, 118, 110)",
    );
    expect(await button.evaluate((b) => (globalThis as unknown as Win).getComputedStyle(b).color)).toBe(
      "rgb(255, 255, 255)",
    );
    expect(
      await page.evaluate(
        () =>
          (globalThis as unknown as Win).getComputedStyle((globalThis as unknown as Win).document.body).borderTopColor,
      ),
    ).toBe("rgb(245, 158, 11)");
    expect(
      await page.evaluate(() => (globalThis as unknown as Win).document.documentElement.scrollWidth),
    ).toBeLessThanOrEqual(375);

    await page.locator('label[for="rating-4"]').click();
    await page.fill("#text", "Friendly staff");
    await button.click();
    await page.waitForLoadState();
    expect(page.url()).toBe(at(`/f/${encodeURIComponent(feedbackToken)}/thanks`));
    expect(await page.textContent("h1")).toBe("Thank you for your feedback!");
    expect(await page.textContent("footer.wl .wl-name")).toBe(BRAND_NAME);
    const shot = path.join(tmpdir(), "white-label-feedback.png");
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`screenshot: ${shot}`);
    const stored = await worker.db
      .prepare("select rating, text from feedback_submissions where solicitation_id = ?")
      .bind(solicitationId)
      .all();
    expect(stored.results).toEqual([{ rating: 4, text: "Friendly staff" }]);
    await context.close();
  }, 60_000);

  it("the unsubscribe page on the custom hostname is branded and unsubscribes", async () => {
    const context = await phone();
    const page = await context.newPage();
    await page.goto(at(`/unsubscribe/${unsubscribeToken}`));
    expect(await page.textContent("h1")).toBe("Unsubscribe from emails from Smile Dental?");
    expect(await page.textContent("footer.wl .wl-name")).toBe(BRAND_NAME);
    const button = page.getByRole("button", { name: "Unsubscribe" });
    expect(await button.evaluate((b) => (globalThis as unknown as Win).getComputedStyle(b).backgroundColor)).toBe(
      "rgb(15, 118, 110)",
    );
    await button.click();
    await page.waitForLoadState();
    expect(await page.textContent("h1")).toBe("You are unsubscribed");
    expect(
      await page
        .getByRole("button", { name: "Resubscribe" })
        .evaluate((b) => (globalThis as unknown as Win).getComputedStyle(b).color),
    ).toBe("rgb(15, 118, 110)");
    await context.close();
  }, 60_000);

  it("the agency's host refuses another agency's tenant with its own branded not-found page; the platform's host serves it unbranded", async () => {
    const context = await phone();
    const page = await context.newPage();
    const res = await page.goto(at(`/f/${foreignToken}`));
    expect(res!.status()).toBe(404);
    expect(await page.textContent("h1")).toBe("We couldn't find this feedback page");
    expect(await page.textContent("footer.wl .wl-name")).toBe(BRAND_NAME);
    const plain = await page.goto(`${worker.url}/f/${foreignToken}`);
    expect(plain!.status()).toBe(200);
    expect(await page.$("footer.wl")).toBeNull();
    expect(
      await page
        .getByRole("button", { name: "Send feedback" })
        .evaluate((b) => (globalThis as unknown as Win).getComputedStyle(b).backgroundColor),
    ).toBe("rgb(37, 99, 235)");
    await context.close();
  }, 60_000);

  it("a review link of another agency's tenant is the host's branded not-found page there, and redirects on the platform's host", async () => {
    const context = await phone();
    const page = await context.newPage();
    const res = await page.goto(at(`/l/${foreignSlug}`));
    expect(res!.status()).toBe(404);
    expect(await page.textContent("h1")).toBe("This link is no longer active");
    expect(await page.textContent("footer.wl .wl-name")).toBe(BRAND_NAME);
    // the same link on the platform's host sends people on (not followed: it leaves for Google)
    const plain = await fetch(`${worker.url}/l/${foreignSlug}`, { redirect: "manual" });
    expect(plain.status).toBe(302);
    expect(plain.headers.get("location")).toContain("placeid=ChIJ-elsewhere");
    await context.close();
  }, 60_000);
});
