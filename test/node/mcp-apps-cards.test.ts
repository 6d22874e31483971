// The MCP Apps cards in a real web host (headless Chromium): the built Worker served from workerd with
// real data, a host page on one origin whose MCP client calls the tool and reads its ui:// resource, the
// specification's sandbox proxy on a second origin serving the card's HTML under the Content-Security-
// Policy built from the resource's `_meta.ui.csp` (no 'unsafe-eval'), ext-apps' AppBridge over
// PostMessageTransport, and a report endpoint for the policy (test/node/helpers/mcp-apps-host.ts). For
// each card: it initialises, shows the server's data, one of its actions runs, and REST then reads the
// server's state. Any CSP report fails the test. Screenshots go to test-artifacts/mcp-apps/ (and to
// docs/images/ with MCP_APPS_SCREENSHOTS=1, the ones docs/mcp.md shows).
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { Browser, Frame, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, bootstrapApi, confirmInConsole } from "./helpers/api";
import { CHROMIUM, launchChromium } from "./helpers/browser";
import { type CardHost, startCardHost } from "./helpers/mcp-apps-host";
import { startWorker } from "./helpers/worker-server";

// browser globals inside page.evaluate callbacks (the node project's types have no DOM)
declare const document: any;
declare const window: any;
declare function getComputedStyle(element: unknown): { backgroundColor: string };

const root = path.resolve(import.meta.dirname, "../..");
const ARTIFACTS = path.join(root, "test-artifacts/mcp-apps");
const DOC_IMAGES = path.join(root, "docs/images");
/** a reviewer's text that tries markup and script: the card must show it as text */
const XSS = `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script> Terrible & "slow"`;

describe.skipIf(!existsSync(CHROMIUM))("MCP Apps cards in a web host, against the built Worker", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let host: CardHost;
  let browser: Browser;
  let api: Api;
  /** an API key with what the three cards read and do */
  let key = "";
  /** an API key that reads approvals and decides them, without read:reviews */
  let keyWithoutReviews = "";
  let locationId = "";
  const reviews: Record<"bad" | "good", { id: string; inboxId: string; replyId: string }> = {} as never;

  beforeAll(async () => {
    host = await startCardHost();
    // the host page's MCP client calls /mcp from the browser: the Worker admits the host's origin (CORS)
    worker = await startWorker({ vars: { MCP_ALLOWED_ORIGINS: host.hostOrigin } });
    const boot = await bootstrapApi(worker.base, {
      name: "Card Dental",
      slug: `cards-${Date.now().toString(36)}`,
      email: "owner@cards.test",
    });
    api = boot.api;
    const post = (p: string, body: unknown) => api(p, { method: "POST", body: JSON.stringify(body) });
    locationId = (await post("/v1/locations", { name: "Downtown", city: "Springfield" })).id;
    // the browser's clock reads UTC (newPage's timezoneId): yesterday 00:00:05 UTC is "yesterday" at any hour
    const yesterday = new Date(`${new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)}T00:00:05Z`);
    const seed = [
      ["bad", { rating: 2, text: XSS, authorName: "Mallory", siteType: "google", publishedAt: yesterday }],
      [
        "good",
        {
          rating: 4,
          text: "Friendly staff, long wait.",
          authorName: "Ann",
          siteType: "yelp",
          publishedAt: new Date(Date.now() - 5.5 * 3_600_000),
        },
      ],
    ] as const;
    for (const [name, r] of seed) {
      const review = await post("/v1/reviews/ingest", {
        locationId,
        siteType: r.siteType,
        externalReviewId: `ext-${name}`,
        rating: r.rating,
        text: r.text,
        authorName: r.authorName,
        publishedAt: r.publishedAt.toISOString(),
      });
      const reply = await post(`/v1/reviews/${review.id}/responses`, { text: `Thank you, ${r.authorName}.` });
      await post(`/v1/responses/${reply.id}/submit`, {});
      const items = await api(`/v1/inbox?type=review&limit=10`);
      const inboxId = items.data.find((i: { reviewId: string }) => i.reviewId === review.id).id;
      reviews[name] = { id: review.id, inboxId, replyId: reply.id };
    }
    const mint = async (scopes: string[]) => (await post("/v1/api-keys", { name: scopes.join(" "), scopes })).key;
    key = await mint([
      "read:approvals",
      "read:reviews",
      "read:feedback",
      "read:score",
      "write:responses",
      "write:inbox",
    ]);
    keyWithoutReviews = await mint(["read:approvals", "write:responses"]);
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await worker?.stop();
  });

  /** No CSP violation was reported to the policy's report-uri so far (`settle`: give a late report time to arrive). */
  async function expectNoCspReport(settle = true) {
    if (settle) await new Promise((r) => setTimeout(r, 200));
    expect(host.reports.map((r) => JSON.stringify(r))).toEqual([]);
  }

  /** The host page opens `tool` with `args`: the card's frame once it has drawn the tool's result. */
  async function open(
    tool: string,
    args: Record<string, unknown>,
    o: { token?: string; theme?: "light" | "dark"; protocol?: "2025-11-25" | "2026-07-28" } = {},
  ): Promise<{ page: Page; frame: Frame }> {
    const page = await browser.newPage({ viewport: { width: 600, height: 900 }, timezoneId: "UTC" });
    await page.emulateMedia({ colorScheme: o.theme ?? "light" });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(host.hostUrl);
    const opened = await page.evaluate((x) => window.openCard(x), {
      mcpUrl: `${worker.base}/mcp`,
      token: o.token ?? key,
      sandboxUrl: host.sandboxUrl,
      tool,
      args,
      theme: o.theme ?? "light",
      protocol: o.protocol ?? "2025-11-25",
    });
    // the policy the sandbox served is the one built from what the resource declared
    expect(opened.csp).toEqual({ connectDomains: [], resourceDomains: [] });
    expect(host.policies.at(-1)).toContain("script-src 'self' 'unsafe-inline';");
    expect(host.policies.at(-1)).toContain("connect-src 'none'");
    // host page -> sandbox proxy (second origin) -> the card (written into the proxy's inner iframe)
    const sandbox = page.frames().find((f) => f.url().startsWith(host.sandboxUrl))!;
    expect(new URL(sandbox.url()).origin).not.toBe(host.hostOrigin);
    const frame = sandbox.childFrames()[0]!;
    await frame.waitForSelector('main[aria-busy="false"]');
    expect(errors).toEqual([]);
    // the card ran its script and drew: anything it did against the policy is reported by now (the
    // eval of zod's JIT probe was, on the first message it parsed)
    await expectNoCspReport();
    return { page, frame };
  }

  const statusOf = (frame: Frame) => frame.locator("#status").textContent();
  const waitStatus = (frame: Frame, text: string) =>
    frame.waitForFunction((t) => document.getElementById("status")?.textContent === t, text);
  const calls = (page: Page): Promise<{ name: string; arguments: Record<string, any> }[]> =>
    page.evaluate(() => window.calls);

  /**
   * A tool that needs the user's confirmation: the card shows its question and the console's confirm page
   * (no code); the tenant's owner confirms there (the key is an API key: a manager or admin confirms), then
   * "I confirmed it" repeats the same call.
   */
  async function confirmFromCard(scope: Locator) {
    const link = await scope.getByRole("link", { name: "Confirm it in the browser" }).getAttribute("href");
    expect(link).toMatch(new RegExp(`^${worker.base}/app/t/[^/]+/confirm/`));
    await confirmInConsole(link!, "owner@cards.test");
    await scope.getByRole("button", { name: "I confirmed it, go ahead" }).click();
  }

  async function screenshot(page: Page, name: string) {
    const file = `mcp-app-${name}.png`;
    // the card told the host its height (ui/notifications/size-changed): the iframe fits it
    await page.waitForFunction(() => document.querySelector("iframe")?.style.height !== "200px");
    const iframe = page.locator("iframe").first();
    await iframe.screenshot({ path: path.join(ARTIFACTS, file) });
    if (process.env.MCP_APPS_SCREENSHOTS === "1") {
      mkdirSync(DOC_IMAGES, { recursive: true });
      await iframe.screenshot({ path: path.join(DOC_IMAGES, file) });
    }
  }

  it("reply approval: each pending reply with the review it answers; Approve, confirmed in the card, approves it", async () => {
    const { page, frame } = await open("approval.list-pending", {});
    const replies = frame.locator("article.reply");
    expect(await replies.count()).toBe(2);
    // oldest first: Mallory's (submitted first); the review's stars, author, site, location and text
    const first = replies.nth(0);
    expect(await first.locator(".review .stars").getAttribute("aria-label")).toBe("2 of 5 stars");
    expect(await first.locator(".review .meta").textContent()).toBe(
      "★★☆☆☆ Mallory · Google · Downtown · published yesterday",
    );
    // the hostile review is the blockquote's text: no element was made from it, no script ran
    expect(await first.locator(".review blockquote").textContent()).toBe(XSS);
    expect(await frame.locator("img").count()).toBe(0);
    expect(await frame.evaluate(() => window.__xss)).toBeUndefined();
    expect(await replies.nth(1).locator(".review .meta").textContent()).toBe(
      "★★★★☆ Ann · Yelp · Downtown · published 5 hours ago",
    );
    expect(await first.locator(".reply-text").textContent()).toBe("Thank you, Mallory.");
    expect(await first.locator(".badge").textContent()).toBe("waiting for approval");
    await screenshot(page, "response-approval-light");

    await first.getByRole("button", { name: "Approve" }).click();
    // the tool asks the user first, in the browser: the card repeats the same call once they confirmed there
    await confirmFromCard(first);
    await waitStatus(frame, "Reply approved.");
    // decided: the outcome instead of the buttons
    expect(await first.locator(".outcome").textContent()).toBe("Approved.");
    expect(await first.getByRole("button").count()).toBe(0);
    expect(await first.locator(".badge").textContent()).toBe("approved");
    expect(await replies.nth(1).getByRole("button", { name: "Approve" }).count()).toBe(1);
    const made = await calls(page);
    expect(made.map((c) => c.name)).toEqual(["response.approve", "response.approve"]);
    expect(made[0]!.arguments).toEqual({ responseId: reviews.bad.replyId });
    expect(made[1]!.arguments).toEqual({ responseId: reviews.bad.replyId });
    // the server's state, read over REST
    const [reply] = await api(`/v1/reviews/${reviews.bad.id}/responses`).then((r) => r as unknown as any[]);
    expect(reply).toMatchObject({ id: reviews.bad.replyId, status: "approved" });
    await expectNoCspReport();
    await page.close();
  });

  it("reply approval without read:reviews: the replies, and a line saying why their reviews are not shown", async () => {
    const { page, frame } = await open(
      "approval.list-pending",
      {},
      { token: keyWithoutReviews, protocol: "2026-07-28" },
    );
    expect(await frame.locator("article.reply").count()).toBe(1);
    expect(await frame.locator(".review").count()).toBe(0);
    expect(await frame.locator(".withheld").textContent()).toBe(
      "The reviews these replies answer are not shown: this connection was not granted read:reviews.",
    );
    expect(await frame.locator(".reply-text").textContent()).toBe("Thank you, Ann.");
    await page.close();
  });

  it("inbox triage: the real items with how long they have waited; Close resolves one on the server", async () => {
    const { page, frame } = await open("inbox.list", { type: "review" }, { protocol: "2026-07-28" });
    const items = frame.locator("li.item");
    expect(await items.count()).toBe(2);
    expect(await frame.locator(".waited").allTextContents()).toEqual([
      "waiting for less than an hour",
      "waiting for less than an hour",
    ]);
    // the hostile review's excerpt is text here too
    expect(await items.filter({ hasText: "Terrible" }).locator("blockquote").textContent()).toBe(XSS);
    expect(await frame.locator("img").count()).toBe(0);
    // sla.overdue was read through the host (no SLA rule here: no due times)
    expect(await frame.evaluate(() => document.querySelector("main")?.dataset.sla)).toBe("shown");
    await screenshot(page, "inbox-triage-light");
    const good = items.filter({ hasText: "Friendly staff" });
    await good.getByRole("button", { name: "Close" }).click();
    await confirmFromCard(good);
    await waitStatus(frame, "Item closed.");
    expect(await good.locator(".outcome").textContent()).toBe("Closed.");
    expect(await good.getByRole("button").count()).toBe(0);
    expect((await calls(page)).map((c) => c.name)).toEqual(["sla.overdue", "inbox.set-status", "inbox.set-status"]);
    const item = await api(`/v1/inbox/${reviews.good.inboxId}?type=review`);
    expect(item.status).toBe("resolved");
    await expectNoCspReport();
    await page.close();
  });

  it("location score: the score, then the rating trend and replies due read through the host, as REST reads them", async () => {
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    await api("/v1/analytics/rebuild", { method: "POST", body: JSON.stringify({ dateFrom: day(3), dateTo: day(0) }) });
    const snapshot = await api(`/v1/locations/${locationId}/score/recompute`, { method: "POST" });
    const { page, frame } = await open("score.location", { locationId });
    await frame.waitForFunction(() => !document.getElementById("due")?.textContent?.includes("loading"));
    await frame.waitForFunction(() => !document.getElementById("trend")?.textContent?.includes("loading"));
    expect(await frame.locator(".score strong").textContent()).toBe(String(snapshot.score));
    expect(await frame.locator("meter").count()).toBe(5);
    // both reviews are within 30 days: the same average over the month and the year
    expect(await frame.locator("#trend").textContent()).toBe(
      "Rating trend: 3.00 in the last 30 days against 3.00 over the year (steady ▶)",
    );
    const open_ = await api(`/v1/inbox?locationId=${locationId}&type=review&status=new&limit=100`);
    expect(await frame.locator("#due").textContent()).toBe(
      `Replies due: ${open_.data.length} new review${open_.data.length === 1 ? "" : "s"} without a reply`,
    );
    expect((await calls(page)).map((c) => c.name)).toEqual(["review.summary", "review.summary", "inbox.list"]);
    await screenshot(page, "location-score-light");
    await expectNoCspReport();
    await page.close();
  });

  it("an error result reads as a sentence, not as JSON; the host's dark theme wins", async () => {
    const { page, frame } = await open("inbox.get", { itemId: "no-such-item", itemType: "review" }, { theme: "dark" });
    const text = await frame.locator("main").textContent();
    expect(text).toBe("The inbox item was not found. It may have been removed, or this connection cannot see it.");
    expect(await frame.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(21, 24, 28)");
    // the card cannot reach the host page (another origin, behind the sandbox proxy's)
    const reach = () => {
      try {
        return window.top.document.title;
      } catch {
        return "blocked";
      }
    };
    expect(await frame.evaluate(reach)).toBe("blocked");
    await page.evaluate(() => window.setTheme("light"));
    await frame.waitForFunction(() => document.documentElement.dataset.theme === "light");
    expect(await frame.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(255, 255, 255)");
    await expectNoCspReport();
    await page.close();
  });

  it("the approval card in dark, from inbox.get: a decided reply shows its outcome", async () => {
    const { page, frame } = await open(
      "inbox.get",
      { itemId: reviews.bad.inboxId, itemType: "review" },
      { theme: "dark" },
    );
    const reply = frame.locator("article.reply");
    expect(await reply.locator(".outcome").textContent()).toBe("Approved.");
    expect(await reply.getByRole("button").count()).toBe(0);
    expect(await statusOf(frame)).toBe("");
    await screenshot(page, "response-approval-dark");
    await page.close();
  });
});
