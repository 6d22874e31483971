// The hosted feedback page end to end in a real browser: the run's shared Worker (test/setup/served-worker.ts),
// headless Chromium filling in the form without any script on the page,
// the thank-you page with the public review links, and the feedback read back from the inbox API.
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedFeedbackSolicitation, tenantApi } from "./helpers/api";
import { CHROMIUM, launchChromium } from "./helpers/browser";
import { sharedWorker } from "./helpers/worker-server";

const ARTIFACTS = path.resolve(import.meta.dirname, "../../test-artifacts");

describe.skipIf(!existsSync(CHROMIUM))("hosted feedback page in headless Chromium", () => {
  const worker = sharedWorker();
  let browser: Browser;
  let auth: Record<string, string>;
  let token: string;

  beforeAll(async () => {
    const boot = await tenantApi(worker.url, {
      name: "Smile Dental",
      slug: `smile-${Date.now().toString(36)}`,
      email: "owner@smile-feedback.test",
    });
    auth = boot.auth;
    const location = await boot.api("/v1/locations", {
      method: "POST",
      body: JSON.stringify({
        name: "Smile Dental Downtown",
        city: "Springfield",
        googlePlaceId: "ChIJ-smile-downtown",
        facebookPageId: "smiledental",
      }),
    });
    const contact = await boot.api("/v1/contacts", {
      method: "POST",
      body: JSON.stringify({ email: "pat@example.test", firstName: "Pat" }),
    });
    ({ token } = await seedFeedbackSolicitation(worker.db, {
      tenantId: boot.tenantId,
      locationId: location.id,
      contactId: contact.id,
    }));

    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
  });

  it("takes 2 stars and a comment, thanks the customer with the review links, and lands in the inbox", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    const res = await page.goto(`${worker.url}/f/${token}`);
    expect(res?.status()).toBe(200);
    expect(await page.textContent("header")).toContain("Smile Dental");
    await expect
      .poll(() => page.getByRole("heading", { level: 1 }).textContent())
      .toBe("How was your visit to Smile Dental Downtown?");

    // what a person does: tap the second star (the radio itself is visually hidden, reachable by keyboard)
    await page.locator("label", { hasText: "2 stars" }).click();
    expect(await page.getByLabel("2 stars").isChecked()).toBe(true);
    await page.getByLabel("Tell us more (optional)").fill("The wait was long, but the hygienist was kind.");
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, "feedback-form.png"), fullPage: true });
    await page.getByRole("button", { name: "Send feedback" }).click();

    await page.waitForURL(`${worker.url}/f/${token}/thanks`);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Thank you for your feedback!");
    const google = page.getByRole("link", { name: "Review us on Google" });
    expect(await google.getAttribute("href")).toBe(
      "https://search.google.com/local/writereview?placeid=ChIJ-smile-downtown",
    );
    expect(await page.getByRole("link", { name: "Review us on Facebook" }).getAttribute("href")).toBe(
      "https://www.facebook.com/smiledental/reviews",
    );
    await page.screenshot({ path: path.join(ARTIFACTS, "feedback-thanks.png"), fullPage: true });

    const inbox = await fetch(`${worker.url}/v1/inbox?type=feedback`, { headers: auth }).then(
      (r) => r.json() as Promise<{ data: Record<string, unknown>[] }>,
    );
    expect(inbox.data).toHaveLength(1);
    expect(inbox.data[0]).toMatchObject({
      type: "feedback",
      status: "new",
      rating: 2,
      excerpt: "The wait was long, but the hygienist was kind.",
    });
  }, 60_000);

  it("shows a friendly page for a forged link", async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${worker.url}/f/${token.slice(0, -3)}xyz`);
    expect(res?.status()).toBe(404);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("We couldn't find this feedback page");
  }, 30_000);
});
