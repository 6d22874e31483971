// The white label in a real browser: the built Worker served from workerd (bench/lib/server.mjs), headless
// Chromium opening a feedback link and an unsubscribe link on the agency's custom hostname (resolved to
// the local Worker with --host-resolver-rules), JavaScript off, phone-sized. The pages must show the
// agency's name, logo and colours, escape what the agency typed, and still work.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Browser, type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BENCH_BOOTSTRAP_SECRET, BENCH_JWT_SECRET, type StartedServer, startServer } from "../../bench/lib/server.mjs";
import { mintLinkToken, mintUnsubscribeToken } from "../../src/modules/links/tokens";
import { CHROMIUM, freePort } from "./helpers/browser";

/** the browser's window inside page.evaluate (the test project has no DOM lib; types are erased) */
type Win = {
  getComputedStyle(e: unknown): Record<string, string>;
  document: { body: unknown; documentElement: { scrollWidth: number } };
};
const HOST = "reviews.northwind.test";
const LOGO = "https://cdn.northwind.test/logo.svg";
const BRAND_NAME = "Northwind <b>Reviews</b>";

describe.skipIf(!existsSync(CHROMIUM))("white-labelled public pages in headless Chromium", () => {
  let worker: StartedServer;
  let browser: Browser;
  let port: number;
  let feedbackToken: string;
  let unsubscribeToken: string;
  let foreignToken: string;
  let foreignSlug: string;
  const outdir = mkdtempSync(path.join(tmpdir(), "white-label-page-"));

  beforeAll(async () => {
    port = await freePort();
    worker = await startServer({ port, outdir });
    let auth: Record<string, string> = {};
    const api = (p: string, init: RequestInit = {}) =>
      fetch(`${worker.url}${p}`, {
        ...init,
        headers: { "content-type": "application/json", ...auth, ...(init.headers as Record<string, string>) },
      }).then(async (r) => {
        const body = r.status === 204 ? null : await r.json();
        if (r.status >= 300) throw new Error(`${p}: ${r.status} ${JSON.stringify(body)}`);
        return body as Record<string, any>;
      });
    const boot = await api("/bootstrap", {
      method: "POST",
      headers: { "x-bootstrap-secret": BENCH_BOOTSTRAP_SECRET },
      body: JSON.stringify({
        tenantName: "Smile Dental",
        tenantSlug: "smile-dental",
        adminEmail: "owner@smile.test",
        adminPassword: "long enough password",
        adminName: "Owner",
      }),
    });
    auth = { authorization: `Bearer ${boot.token}`, "x-tenant-id": boot.tenant.id };
    const agencyId = boot.tenant.agencyId as string;
    await api(`/agency/agencies/${agencyId}/branding`, {
      method: "PUT",
      body: JSON.stringify({
        name: BRAND_NAME,
        logoUrl: LOGO,
        primaryColor: "#0F766E",
        accentColor: "#f59e0b",
        supportEmail: "help@northwind.test",
      }),
    });
    // the hostname as the status sweep leaves it once Cloudflare reports it active and the ownership TXT record was found
    const now = new Date().toISOString();
    await worker.db
      .prepare(`insert into custom_hostnames (id, scope, scope_id, agency_id, hostname, provider_id, status, ssl_status, verification, ownership_token, verified_at, activated_at, last_checked_at, created_at, updated_at)
        values ('ch_1', 'agency', ?, ?, ?, 'cf_1', 'active', 'active', '{}', 'rops-verify=test', ?, ?, ?, ?, ?)`)
      .bind(agencyId, agencyId, HOST, now, now, now, now, now)
      .run();
    const location = await api("/v1/locations", {
      method: "POST",
      body: JSON.stringify({ name: "Smile Downtown", googlePlaceId: "ChIJ-smile" }),
    });
    const contact = await api("/v1/contacts", {
      method: "POST",
      body: JSON.stringify({ email: "pat@example.test", firstName: "Pat" }),
    });
    const solicitationId = "sol_white_label";
    feedbackToken = await mintLinkToken(BENCH_JWT_SECRET, {
      solicitationId,
      tenantId: boot.tenant.id,
      locationId: location.id,
      destination: "feedback",
    });
    await worker.db
      .prepare(`insert into solicitations (id, tenant_id, location_id, contact_id, channel, status, short_link_token, idempotency_key, metadata, sent_at, created_at, updated_at)
        values (?, ?, ?, ?, 'email', 'SENT', ?, ?, '{}', ?, ?, ?)`)
      .bind(solicitationId, boot.tenant.id, location.id, contact.id, feedbackToken, solicitationId, now, now, now)
      .run();
    unsubscribeToken = await mintUnsubscribeToken(BENCH_JWT_SECRET, {
      tenantId: boot.tenant.id,
      contactId: contact.id,
      channel: "email",
      solicitationId,
    });

    // a tenant of another agency (no white label), whose links the agency's host must refuse
    const other = await api("/admin/agencies", {
      method: "POST",
      body: JSON.stringify({ name: "Other agency", slug: "other-agency" }),
    });
    const otherTenant = await api("/agency/tenants", {
      method: "POST",
      body: JSON.stringify({ name: "Elsewhere", slug: "elsewhere", agencyId: other.id }),
    });
    const otherLocation = await api(`/agency/tenants/${otherTenant.id}/locations`, {
      method: "POST",
      body: JSON.stringify({ name: "Elsewhere Main" }),
    });
    foreignToken = await mintLinkToken(BENCH_JWT_SECRET, {
      solicitationId: "sol_foreign",
      tenantId: otherTenant.id,
      locationId: otherLocation.id,
      destination: "feedback",
    });
    // and one of its review links (/l/{slug}), which the agency's host must refuse as well
    const asOther = { "x-tenant-id": otherTenant.id };
    const reviewed = await api("/v1/locations", {
      method: "POST",
      headers: asOther,
      body: JSON.stringify({ name: "Elsewhere Reviews", googlePlaceId: "ChIJ-elsewhere" }),
    });
    foreignSlug = (
      await api("/v1/review-links", {
        method: "POST",
        headers: asOther,
        body: JSON.stringify({ locationId: reviewed.id, weights: { google: 1 } }),
      })
    ).slug as string;

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        `--host-resolver-rules=MAP ${HOST} 127.0.0.1`,
      ],
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await worker?.mf.dispose();
    rmSync(outdir, { recursive: true, force: true });
  });

  /** A phone without JavaScript; the agency's CDN answers the logo (no network here). */
  async function phone(): Promise<BrowserContext> {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 375, height: 667 } });
    await context.route(`${LOGO}*`, (route) =>
      route.fulfill({
        contentType: "image/svg+xml",
        body: `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="24"><rect width="96" height="24" fill="#0f766e"/></svg>`,
      }),
    );
    return context;
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
    expect(await page.getAttribute("footer.wl img", "src")).toBe(LOGO);
    expect(await page.$eval("footer.wl img", (img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(
      96,
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
      .prepare("select rating, text from feedback_submissions where solicitation_id = 'sol_white_label'")
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
