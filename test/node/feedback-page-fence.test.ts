// The hosted feedback page while its tenant is being moved to another shard (docs/scaling.md,
// "The fence"): headless Chromium sends the form, gets the form back with its answers and a
// "send it again" message (503, Retry-After), and sends it again once the fence is lifted.
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedFeedbackSolicitation, tenantApi } from "./helpers/api";
import { CHROMIUM, launchChromium } from "./helpers/browser";
import { sharedWorker } from "./helpers/worker-server";

const ARTIFACTS = path.resolve(import.meta.dirname, "../../test-artifacts");
/** the directory cache's TTL (src/db/shards.ts): the move waits as long for every isolate to see the fence */
const SETTLE_MS = 10_500;

describe.skipIf(!existsSync(CHROMIUM))("hosted feedback page during a tenant move, in headless Chromium", () => {
  // the run's shared Worker: the fence is this file's own tenant's, no other file's tenant moves
  const worker = sharedWorker();
  let browser: Browser;
  let auth: Record<string, string>;
  let token: string;
  let tenantId: string;
  let solicitationId: string;

  beforeAll(async () => {
    const boot = await tenantApi(worker.url, {
      name: "Moving Dental",
      slug: `moving-${Date.now().toString(36)}`,
      email: "owner@moving.test",
    });
    ({ auth, tenantId } = boot);
    const location = await boot.api("/v1/locations", {
      method: "POST",
      body: JSON.stringify({ name: "Moving Dental Uptown", city: "Springfield" }),
    });
    const contact = await boot.api("/v1/contacts", {
      method: "POST",
      body: JSON.stringify({ email: "sam@example.test", firstName: "Sam" }),
    });
    ({ solicitationId, token } = await seedFeedbackSolicitation(worker.db, {
      tenantId,
      locationId: location.id,
      contactId: contact.id,
    }));
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
  });

  /** what the move does to the directory row; the Worker's caches see it after the settle time */
  const setFence = async (on: boolean) => {
    await worker.db
      .prepare("update tenants set moving_since = ? where id = ?")
      .bind(on ? new Date().toISOString() : null, tenantId)
      .run();
    await new Promise((r) => setTimeout(r, SETTLE_MS));
  };
  const convertedAt = async () =>
    (await worker.db
      .prepare("select converted_at as at from solicitations where id = ?")
      .bind(solicitationId)
      .first<{ at: string | null }>())!.at;

  it("keeps the answers and asks to send again while the tenant moves, then takes them once it is writable", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    expect((await page.goto(`${worker.url}/f/${token}`))?.status()).toBe(200);
    await setFence(true);

    await page.locator("label", { hasText: "4 stars" }).click();
    const comment = "Friendly staff, short wait.";
    await page.getByLabel("Tell us more (optional)").fill(comment);
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST"),
      page.getByRole("button", { name: "Send feedback" }).click(),
    ]);
    expect(refused.status()).toBe(503);
    expect(await refused.headerValue("retry-after")).toBe("5");
    await expect
      .poll(() => page.locator("body").textContent())
      .toContain("We could not save your feedback just now. Please send it again in a few seconds.");
    // the person's answers are still there
    expect(await page.getByLabel("4 stars").isChecked()).toBe(true);
    expect(await page.getByLabel("Tell us more (optional)").inputValue()).toBe(comment);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, "feedback-fenced.png"), fullPage: true });
    expect(await convertedAt()).toBeNull();

    await setFence(false);
    await page.getByRole("button", { name: "Send feedback" }).click();
    await page.waitForURL(`${worker.url}/f/${token}/thanks`);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Thank you for your feedback!");
    expect(await convertedAt()).not.toBeNull();
    const inbox = await fetch(`${worker.url}/v1/inbox?type=feedback`, { headers: auth }).then(
      (r) => r.json() as Promise<{ data: Record<string, unknown>[] }>,
    );
    expect(inbox.data).toHaveLength(1);
    expect(inbox.data[0]).toMatchObject({ type: "feedback", rating: 4, excerpt: comment });
  }, 90_000);
});
