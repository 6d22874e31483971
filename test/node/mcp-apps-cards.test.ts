// The MCP Apps cards in headless Chromium, as a chat client shows them: each card's HTML (what
// resources/read serves, test/mcp/apps-resources.test.ts) in a sandboxed iframe driven by the ext-apps
// SDK's host side (AppBridge, test/node/helpers/mcp-apps-host.ts). The card gets a tool result, its
// buttons are pressed, and the host must receive exactly the tools/call requests expected; review
// text stays text; light and dark follow the host's theme. Screenshots go to test-artifacts/mcp-apps/
// (and to docs/images/ with MCP_APPS_SCREENSHOTS=1, the ones docs/mcp.md shows).
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import type { Browser, Frame, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a .mjs script without types
import { GENERATED, GENERATED_SCRIPT, generate } from "../../scripts/build-mcp-apps.mjs";
import { APP_CARDS, type AppCard, cardHtml } from "../../src/modules/mcp/apps/cards";
import { CHROMIUM, launchChromium } from "./helpers/browser";

// browser globals inside page.evaluate callbacks (the node project's types have no DOM)
declare const document: any;
declare const window: any;
declare function getComputedStyle(element: unknown): { backgroundColor: string };

const root = path.resolve(import.meta.dirname, "../..");
const ARTIFACTS = path.join(root, "test-artifacts/mcp-apps");
const DOC_IMAGES = path.join(root, "docs/images");
const XSS = `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script> Terrible & "slow"`;

const card = (kind: AppCard["kind"]) => APP_CARDS.find((c) => c.kind === kind)!;
const result = (structured: unknown) => ({
  content: [{ type: "text" as const, text: JSON.stringify(structured) }],
  structuredContent: structured,
});

const REVIEW_ITEM = {
  id: "inb_1",
  type: "review",
  status: "new",
  review: {
    authorName: "Mallory",
    rating: 2,
    text: XSS,
    siteType: "google",
    publishedAt: new Date(Date.now() - 5 * 3_600_000).toISOString(),
  },
  responses: [{ id: "rsp_1", text: "Thank you for telling us, we are sorry.", status: "submitted" }],
};

const INBOX_PAGE = {
  data: [
    {
      id: "inb_b",
      type: "feedback",
      reviewId: null,
      status: "new",
      rating: 4,
      excerpt: "Friendly staff, long wait.",
      assignedToUserId: null,
      tags: [],
      escalatedAt: null,
      escalationReason: null,
      createdAt: new Date(Date.now() - 3 * 3_600_000).toISOString(),
    },
    {
      id: "inb_a",
      type: "review",
      reviewId: "rev_a",
      status: "new",
      rating: 1,
      excerpt: XSS,
      assignedToUserId: null,
      tags: ["billing"],
      escalatedAt: new Date(Date.now() - 3_600_000).toISOString(),
      escalationReason: "SLA breached",
      createdAt: new Date(Date.now() - 30 * 3_600_000).toISOString(),
    },
  ],
  pageInfo: { hasNextPage: false, endCursor: null },
};

// a third item: a review not escalated yet but past its SLA window (sla.overdue answers it)
const LATE_ITEM = {
  id: "inb_c",
  type: "review",
  reviewId: "rev_c",
  status: "new",
  rating: 2,
  excerpt: "Cold food.",
  assignedToUserId: null,
  tags: [],
  escalatedAt: null,
  escalationReason: null,
  createdAt: new Date(Date.now() - 2 * 3_600_000).toISOString(),
};
const SLA_DUE = new Date(Date.now() - 3 * 3_600_000 - 60_000).toISOString();
const OVERDUE = {
  data: [
    {
      id: "rev_c",
      rating: 2,
      text: "Cold food.",
      sla: { ruleId: "sla_1", ruleName: "Negative", dueAt: SLA_DUE, escalateAt: SLA_DUE, escalatedAt: null },
    },
    // another review's, not in this page: ignored
    { id: "rev_zz", sla: { ruleId: "sla_1", ruleName: "Negative", dueAt: SLA_DUE, escalateAt: SLA_DUE } },
  ],
};

const SNAPSHOT = {
  id: "scr_1",
  locationId: "loc_1",
  day: "2026-11-26",
  score: 78,
  components: { rating: 84, velocity: 62, sentiment: 71, responseHealth: 90, platformDiversity: 67 },
  weights: { rating: 0.35, velocity: 0.2, sentiment: 0.2, responseHealth: 0.15, platformDiversity: 0.1 },
  inputs: { positive90: 41, neutral90: 6, negative90: 5 },
  computedAt: "2026-11-26T03:00:00.000Z",
};

// without Chromium too: the Worker serves what is committed
describe("the cards' view bundle", () => {
  // (the views' own typecheck is `npm run typecheck`, a CI step, not a test)
  it("the committed view bundle is what scripts/build-mcp-apps.mjs builds now", async () => {
    const { readFileSync } = await import("node:fs");
    const files: Record<string, string> = await generate();
    // views.generated.ts and the view script beside it (a Text module)
    expect(Object.keys(files)).toEqual([GENERATED, GENERATED_SCRIPT]);
    for (const [file, text] of Object.entries(files)) expect(readFileSync(file, "utf8"), file).toBe(text);
  });
});

describe.skipIf(!existsSync(CHROMIUM))("MCP Apps cards in a sandboxed iframe driven by AppBridge", () => {
  let browser: Browser;
  let hostScript = "";

  beforeAll(async () => {
    const out = await build({
      entryPoints: [path.join(import.meta.dirname, "helpers/mcp-apps-host.ts")],
      bundle: true,
      format: "iife",
      platform: "browser",
      target: "es2022",
      write: false,
      logLevel: "silent",
    });
    hostScript = out.outputFiles[0]!.text;
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  });
  afterAll(async () => browser?.close());

  /** A host page with one card mounted and given `toolResult`; returns the page and the card's frame. */
  async function mount(
    kind: AppCard["kind"],
    toolResult: unknown,
    o: { theme?: "light" | "dark"; scheme?: "light" | "dark"; replies?: Record<string, unknown[]> } = {},
  ): Promise<{ page: Page; frame: Frame }> {
    const page = await browser.newPage({ viewport: { width: 600, height: 700 } });
    await page.emulateMedia({ colorScheme: o.scheme ?? o.theme ?? "light" });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.setContent(
      `<!doctype html><html><body><script>${hostScript.replace(/<\/script/g, "<\\/script")}</script></body></html>`,
    );
    await page.evaluate((r) => {
      window.replies = r as never;
    }, o.replies ?? {});
    await page.evaluate(([html, res, theme]) => window.mountCard(html as string, res as never, theme as never), [
      cardHtml(card(kind)),
      toolResult,
      o.theme ?? "light",
    ] as const);
    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    await frame.waitForSelector('main[aria-busy="false"]');
    expect(errors).toEqual([]);
    return { page, frame };
  }

  const calls = (page: Page): Promise<{ name: string; arguments: Record<string, any> }[]> =>
    page.evaluate(() => window.calls);
  const status = (frame: Frame) => frame.locator("#status").textContent();
  const bg = (frame: Frame) => frame.evaluate(() => getComputedStyle(document.body).backgroundColor);

  async function screenshot(page: Page, name: string) {
    const file = `mcp-app-${name}.png`;
    // the card told the host its height (ui/notifications/size-changed): the iframe fits it
    await page.waitForFunction(() => document.querySelector("iframe")?.style.height !== "200px");
    const shot = await page.locator("iframe").screenshot({ path: path.join(ARTIFACTS, file) });
    if (process.env.MCP_APPS_SCREENSHOTS === "1") {
      mkdirSync(DOC_IMAGES, { recursive: true });
      await page.locator("iframe").screenshot({ path: path.join(DOC_IMAGES, file) });
    }
    return shot;
  }

  it("reply approval: the review renders as text; approve, edit and reject send the response tools' calls", async () => {
    const { page, frame } = await mount("response-approval", result(REVIEW_ITEM), {
      replies: {
        "response.approve": [result({ id: "rsp_1", status: "approved" })],
        "response.update": [result({ id: "rsp_1", status: "submitted" })],
        "response.reject": [result({ id: "rsp_1", status: "rejected" })],
      },
    });
    // escaping: the hostile review is the blockquote's text, no element was made from it, no script ran
    expect(await frame.locator("blockquote").textContent()).toBe(XSS);
    expect(await frame.locator("img").count()).toBe(0);
    expect(await frame.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    await screenshot(page, "response-approval-light");

    await frame.getByRole("button", { name: "Approve" }).click();
    await frame.waitForFunction(() => document.getElementById("status")?.textContent === "Reply approved.");
    await frame.getByLabel("Reply text").fill("Thanks, Mallory. We fixed the wait.");
    await frame.getByRole("button", { name: "Save edit" }).click();
    await frame.waitForFunction(() => document.getElementById("status")?.textContent === "Reply saved.");
    await frame.getByLabel("Reason if you reject").fill("Too long");
    await frame.getByRole("button", { name: "Reject" }).click();
    await frame.waitForFunction(() => document.getElementById("status")?.textContent === "Reply rejected.");
    expect(await calls(page)).toEqual([
      { name: "response.approve", arguments: { responseId: "rsp_1" } },
      { name: "response.update", arguments: { responseId: "rsp_1", text: "Thanks, Mallory. We fixed the wait." } },
      { name: "response.reject", arguments: { responseId: "rsp_1", reason: "Too long" } },
    ]);
    expect(await frame.locator(".reply .badge").textContent()).toBe("rejected");
    await page.close();
  });

  it("reply approval: a tool that asks for confirmation shows its question; only Yes repeats the call with the code", async () => {
    const refusal = {
      isError: true,
      content: [
        {
          type: "text",
          text: JSON.stringify({
            error: "response.approve needs the user's confirmation.",
            confirmation: { code: "cf_123", question: "Approve this reply?", expiresAt: "2026-11-27T07:00:00Z" },
          }),
        },
      ],
    };
    const { page, frame } = await mount("response-approval", result(REVIEW_ITEM), {
      replies: { "response.approve": [refusal, refusal, result({ id: "rsp_1", status: "approved" })] },
    });
    await frame.getByRole("button", { name: "Approve" }).click();
    await frame.getByText("Approve this reply?", { exact: true }).waitFor();
    expect(
      await frame.getByRole("button", { name: "Yes, go ahead" }).evaluate((b: unknown) => b === document.activeElement),
    ).toBe(true);
    // Cancel: nothing more is sent
    await frame.getByRole("button", { name: "Cancel" }).click();
    expect(await status(frame)).toBe("Cancelled: nothing was done.");
    await frame.getByRole("button", { name: "Approve" }).click();
    await frame.getByRole("button", { name: "Yes, go ahead" }).click();
    await frame.waitForFunction(() => document.getElementById("status")?.textContent === "Reply approved.");
    expect(await calls(page)).toEqual([
      { name: "response.approve", arguments: { responseId: "rsp_1" } },
      { name: "response.approve", arguments: { responseId: "rsp_1" } },
      { name: "response.approve", arguments: { responseId: "rsp_1", confirm: "cf_123" } },
    ]);
    await page.close();
  });

  it("reply approval: a refused call is told in the live region", async () => {
    const { page, frame } = await mount("response-approval", result(REVIEW_ITEM), {
      replies: {
        "response.approve": [
          { isError: true, content: [{ type: "text", text: JSON.stringify({ error: "Forbidden: needs manager" }) }] },
        ],
      },
    });
    await frame.getByRole("button", { name: "Approve" }).click();
    await frame.waitForFunction(() => document.getElementById("status")?.className === "error");
    expect(await status(frame)).toBe("response.approve was refused: Forbidden: needs manager");
    expect(await frame.locator("#status").getAttribute("aria-live")).toBe("polite");
    await page.close();
  });

  it("inbox triage: escalated items first, excerpts as text; assign, tag and close send the inbox tools' calls", async () => {
    const { page, frame } = await mount("inbox-triage", result(INBOX_PAGE));
    const items = frame.locator("li.item");
    expect(await items.count()).toBe(2);
    // the SLA-escalated review comes first, its hostile excerpt as text
    expect(await items.nth(0).locator("blockquote").textContent()).toBe(XSS);
    expect(await items.nth(0).locator(".badge.overdue").textContent()).toBe("Escalated 1 h ago: SLA breached");
    expect(await frame.locator("img").count()).toBe(0);
    await screenshot(page, "inbox-triage-light");

    const first = items.nth(0);
    await first.getByLabel("Assign to").fill("usr_7");
    await first.getByRole("button", { name: "Assign" }).click();
    await frame.waitForFunction(() => document.getElementById("status")?.textContent === "Item assigned.");
    await first.getByLabel("Tags").fill("billing, urgent , ");
    await first.getByRole("button", { name: "Save tags" }).click();
    await frame.waitForFunction(() => document.getElementById("status")?.textContent === "Tags saved.");
    await items.nth(1).getByRole("button", { name: "Close" }).click();
    await frame.waitForFunction(() => document.getElementById("status")?.textContent === "Item closed.");
    expect(await calls(page)).toEqual([
      // the SLA due times, read before the card shows (the host's default answer has none)
      { name: "sla.overdue", arguments: { limit: 100 } },
      { name: "inbox.assign", arguments: { itemId: "inb_a", type: "review", userId: "usr_7" } },
      { name: "inbox.set-tags", arguments: { itemId: "inb_a", type: "review", tags: ["billing", "urgent"] } },
      { name: "inbox.set-status", arguments: { itemIds: ["inb_b"], status: "resolved" } },
    ]);
    await page.close();
  });

  it("inbox triage: asks sla.overdue through the host; an overdue review shows its SLA due time and comes first", async () => {
    const page3 = { ...INBOX_PAGE, data: [...INBOX_PAGE.data, LATE_ITEM] };
    const { page, frame } = await mount("inbox-triage", result(page3), {
      replies: { "sla.overdue": [result(OVERDUE)] },
    });
    await frame.locator(".sla-due").first().waitFor();
    expect(await calls(page)).toEqual([{ name: "sla.overdue", arguments: { limit: 100 } }]);
    const items = frame.locator("li.item");
    expect(await items.count()).toBe(3);
    // the overdue review first, then the escalated one, then the rest
    expect(await items.nth(0).locator("blockquote").textContent()).toBe("Cold food.");
    const due = `${SLA_DUE.slice(0, 16).replace("T", " ")} UTC`;
    expect(await items.nth(0).locator(".sla-due").textContent()).toBe(`SLA due ${due} (overdue by 3 h)`);
    expect(await items.nth(1).locator("blockquote").textContent()).toBe(XSS);
    expect(await frame.locator(".sla-due").count()).toBe(1);
    expect(await frame.locator("img").count()).toBe(0);
    await screenshot(page, "inbox-triage-sla-light");
    await page.close();
  });

  it("inbox triage: a refused sla.overdue (no read:reviews) leaves the card working without the SLA column", async () => {
    const page3 = { ...INBOX_PAGE, data: [...INBOX_PAGE.data, LATE_ITEM] };
    const { page, frame } = await mount("inbox-triage", result(page3), {
      replies: {
        "sla.overdue": [
          {
            isError: true,
            content: [{ type: "text", text: JSON.stringify({ error: "Forbidden: needs read:reviews" }) }],
          },
        ],
      },
    });
    await frame.waitForFunction(() => document.querySelector("main")?.dataset.sla === "unavailable");
    expect(await frame.locator(".sla-due").count()).toBe(0);
    const items = frame.locator("li.item");
    expect(await items.count()).toBe(3);
    expect(await items.nth(0).locator(".badge.overdue").textContent()).toBe("Escalated 1 h ago: SLA breached");
    await items.nth(2).getByRole("button", { name: "Close" }).click();
    await frame.waitForFunction(() => document.getElementById("status")?.textContent === "Item closed.");
    expect((await calls(page)).map((c) => c.name)).toEqual(["sla.overdue", "inbox.set-status"]);
    await page.close();
  });

  it("location score: the score and components, then the trend and replies due read through the host", async () => {
    const { page, frame } = await mount("location-score", result(SNAPSHOT), {
      replies: {
        "review.summary": [result({ averageRating: 4.6 }), result({ averageRating: 4.1 })],
        "inbox.list": [result({ data: [{}, {}, {}], pageInfo: { hasNextPage: false, endCursor: null } })],
      },
    });
    await frame.waitForFunction(() => !document.getElementById("due")?.textContent?.includes("loading"));
    await frame.waitForFunction(() => !document.getElementById("trend")?.textContent?.includes("loading"));
    expect(await frame.locator(".score strong").textContent()).toBe("78");
    expect(await frame.locator("meter").count()).toBe(5);
    expect(await frame.getByLabel("Response health: 90 of 100").count()).toBe(1);
    expect(await frame.locator("#trend").textContent()).toBe(
      "Rating trend: 4.60 in the last 30 days against 4.10 over the year (rising ▲)",
    );
    expect(await frame.locator("#due").textContent()).toBe("Replies due: 3 new reviews without a reply");
    const made = await calls(page);
    expect(made).toEqual([
      { name: "review.summary", arguments: { locationId: "loc_1", since: expect.any(String) } },
      { name: "review.summary", arguments: { locationId: "loc_1", since: expect.any(String) } },
      { name: "inbox.list", arguments: { locationId: "loc_1", type: "review", status: "new", limit: 100 } },
    ]);
    const days = made.slice(0, 2).map((c) => Math.round((Date.now() - Date.parse(c.arguments.since)) / 86_400_000));
    expect(days).toEqual([30, 365]);
    await screenshot(page, "location-score-light");
    await page.close();
  });

  it("light and dark: the host's theme wins over the system's, and without one the system's applies", async () => {
    const dark = await mount("response-approval", result(REVIEW_ITEM), { theme: "dark", scheme: "dark" });
    expect(await bg(dark.frame)).toBe("rgb(21, 24, 28)");
    expect(await dark.frame.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    await screenshot(dark.page, "response-approval-dark");
    await dark.page.close();

    const hostLight = await mount("inbox-triage", result(INBOX_PAGE), { theme: "light", scheme: "dark" });
    expect(await bg(hostLight.frame)).toBe("rgb(255, 255, 255)");
    await hostLight.page.close();

    const hostDark = await mount("inbox-triage", result(INBOX_PAGE), { theme: "dark", scheme: "light" });
    expect(await bg(hostDark.frame)).toBe("rgb(21, 24, 28)");
    await screenshot(hostDark.page, "inbox-triage-dark");
    await hostDark.page.close();
  });

  it("the iframe is sandboxed to scripts only: the card cannot reach the host page", async () => {
    const { page, frame } = await mount("location-score", result(SNAPSHOT));
    expect(await page.locator("iframe").getAttribute("sandbox")).toBe("allow-scripts");
    expect(await frame.evaluate(() => window.origin)).toBe("null");
    expect(
      await frame.evaluate(() => {
        try {
          return window.parent.document.title;
        } catch {
          return "blocked";
        }
      }),
    ).toBe("blocked");
    await page.close();
  });
});
