// The review widget on a plain host page of another origin, in headless Chromium: the run's shared Worker
// (test/setup/served-worker.ts), the host page from a local HTTP server. The widget must
// render (script into a shadow root; iframe without script), escape hostile review text, and leave
// the host page as it was: same computed styles, one new global (ReputationWidgets).
import { existsSync, mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tenantApi } from "./helpers/api";
import { CHROMIUM, launchChromium } from "./helpers/browser";
import { sharedWorker } from "./helpers/worker-server";

const ARTIFACTS = path.resolve(import.meta.dirname, "../../test-artifacts");
const XSS = `<script>window.__xss=1</script><img src=x onerror="window.__xss=2"> and "quotes"`;

/** A host page with its own styles that would leak into (or be broken by) a careless widget. */
const hostPage = (embed: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Host</title><style>
body{font-family:Georgia,serif;color:rgb(10, 20, 30);margin:20px}
h2{color:rgb(0, 128, 0);font-size:30px} p{color:rgb(200, 0, 0);font-size:21px} li{margin:7px}
section,.rw,footer,ol{display:none !important} blockquote{color:rgb(255, 0, 255)}
</style></head><body>
<h2 id="h">Welcome to the host</h2><p id="p">A host paragraph.</p><ol id="o" style="display:block !important"><li id="li">host item</li></ol>
${embed}
<footer id="f" style="display:block !important">host footer</footer>
</body></html>`;

describe.skipIf(!existsSync(CHROMIUM))("review widget on a host page in headless Chromium", () => {
  const worker = sharedWorker();
  let host: Server;
  let hostUrl = "";
  let browser: Browser;
  let key = "";
  let qrUrls = { svg: "", png: "" };
  const pages = new Map<string, string>();

  beforeAll(async () => {
    const { auth } = await tenantApi(worker.url, {
      name: "Smile Dental",
      slug: `smile-${Date.now().toString(36)}`,
      email: "owner@smile-widget.test",
    });
    const api = async (p: string, body?: unknown) => {
      const r = await fetch(`${worker.url}${p}`, {
        method: body ? "POST" : "GET",
        headers: { "content-type": "application/json", ...auth },
        body: body ? JSON.stringify(body) : undefined,
      });
      const json = await r.json();
      if (r.status >= 300) throw new Error(`${p}: ${r.status} ${JSON.stringify(json)}`);
      return json as Record<string, any>;
    };
    const loc = await api("/v1/locations", { name: "Smile Dental Downtown" });
    const reviews = [
      {
        siteType: "google",
        rating: 5,
        text: "Lovely staff, painless cleaning.",
        authorName: "Ann A.",
        publishedAt: "2026-03-01T10:00:00Z",
      },
      { siteType: "google", rating: 2, text: "Long wait.", authorName: "Bob B.", publishedAt: "2026-03-02T10:00:00Z" },
      { siteType: "first_party", rating: 5, text: XSS, authorName: "Eve E.", publishedAt: "2026-03-03T10:00:00Z" },
      {
        siteType: "first_party",
        rating: 4,
        text: "Friendly front desk.",
        authorName: "Cy C.",
        publishedAt: "2026-02-01T10:00:00Z",
      },
    ];
    for (const r of reviews) await api("/v1/reviews/ingest", { locationId: loc.id, ...r });
    const link = await api("/v1/review-links", { locationId: loc.id, weights: { google: 1 } });
    qrUrls = {
      svg: link.qrSvgUrl.replace(/^http:\/\/127\.0\.0\.1:\d+/, worker.url),
      png: link.qrPngUrl.replace(/^http:\/\/127\.0\.0\.1:\d+/, worker.url),
    };
    key = (await api("/v1/widgets", { name: "Homepage", locationId: loc.id, minRating: 4, count: 5 })).publicKey;

    pages.set("/qr", `<!doctype html><img id="svg" src="${qrUrls.svg}" width="256"><img id="png" src="${qrUrls.png}">`);
    pages.set("/plain", hostPage(""));
    pages.set(
      "/script",
      hostPage(
        `<div id="slot" data-reputation-widget="${key}"></div><script src="${worker.url}/w/${key}/embed.js" async></script>`,
      ),
    );
    pages.set("/inserted", hostPage(`<script src="${worker.url}/w/${key}/embed.js"></script>`));
    pages.set(
      "/iframe",
      hostPage(
        `<iframe id="frame" src="${worker.url}/w/${key}" title="Customer reviews" style="border:0;width:100%;height:600px"></iframe>`,
      ),
    );
    host = createServer((req, res) => {
      const body = pages.get(req.url ?? "");
      res.writeHead(body ? 200 : 404, { "content-type": "text/html; charset=utf-8" }).end(body ?? "");
    });
    await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
    // another origin than the Worker's (localhost vs 127.0.0.1)
    hostUrl = `http://localhost:${(host.address() as AddressInfo).port}`;
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => host?.close(r));
  });

  /** What the host page looks like from its own point of view. */
  const hostState = (page: Page) =>
    page.evaluate(() => {
      const { document, getComputedStyle, window } = globalThis as any;
      const style = (id: string) => {
        const s = getComputedStyle(document.getElementById(id)!);
        return { color: s.color, font: s.fontFamily, size: s.fontSize, margin: s.margin, display: s.display };
      };
      return {
        styles: { body: style("h").font, h: style("h"), p: style("p"), o: style("o"), li: style("li"), f: style("f") },
        // own properties, enumerable or not; indexed ones are the page's frames
        globals: Object.getOwnPropertyNames(window)
          .filter((k: string) => !/^\d+$/.test(k))
          .sort(),
        sheets: document.styleSheets.length,
        xss: window.__xss ?? null,
      };
    });

  const open = async (p: string) => {
    const page = await browser.newPage({ viewport: { width: 1024, height: 900 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    expect((await page.goto(`${hostUrl}${p}`))?.status()).toBe(200);
    return { page, errors };
  };

  it("renders the chosen reviews into a shadow root, escapes them, and leaves the host page as it was", async () => {
    const { page: plain } = await open("/plain");
    const before = await hostState(plain);
    const { page, errors } = await open("/script");
    await page.waitForFunction(
      () => (globalThis as any).document.getElementById("slot")?.shadowRoot?.querySelector("footer") != null,
    );
    const widget = await page.evaluate(() => {
      const { document, getComputedStyle } = globalThis as any;
      const root = document.getElementById("slot")!.shadowRoot!;
      const section = root.querySelector("section")!;
      const cs = getComputedStyle(section);
      return {
        title: root.querySelector("h2")!.textContent,
        quotes: [...root.querySelectorAll("blockquote")].map((b: any) => b.textContent),
        footer: root.querySelector("footer")!.textContent,
        display: cs.display,
        font: cs.fontFamily,
        quoteColor: getComputedStyle(root.querySelector("blockquote")!).color,
        injected: root.querySelectorAll("script, img").length,
        height: section.getBoundingClientRect().height,
        ld: JSON.parse(document.querySelector('#slot script[type="application/ld+json"]')!.textContent!),
      };
    });
    expect(widget.title).toBe("Smile Dental Downtown");
    // newest first, 4 and 5 stars only: the hostile text shows as text, nothing of it runs
    expect(widget.quotes).toEqual([XSS, "Lovely staff, painless cleaning.", "Friendly front desk."]);
    expect(widget.injected).toBe(0);
    expect(widget.footer).toBe("Showing 5★ and 4★ reviews, newest first");
    // the host's styles do not reach into the widget
    expect(widget.display).toBe("block");
    expect(widget.font).not.toContain("Georgia");
    expect(widget.quoteColor).not.toBe("rgb(255, 0, 255)");
    expect(widget.height).toBeGreaterThan(200);
    // JSON-LD for the first-party reviews only
    expect(widget.ld.aggregateRating).toMatchObject({ ratingValue: 4.5, reviewCount: 2 });
    expect(widget.ld.review.map((r: { author: { name: string } }) => r.author.name)).toEqual(["Eve E.", "Cy C."]);

    const after = await hostState(page);
    expect(after.styles).toEqual(before.styles);
    expect(after.sheets).toBe(before.sheets);
    expect(after.globals.filter((g) => !before.globals.includes(g))).toEqual(["ReputationWidgets"]);
    expect(after.xss).toBeNull();
    expect(errors).toEqual([]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, "widget-script.png"), fullPage: true });
  }, 60_000);

  it("inserts its own host element before a bare script tag", async () => {
    const { page, errors } = await open("/inserted");
    const count = await page.evaluate(() => {
      const { document } = globalThis as any;
      const el = document.querySelector("[data-reputation-widget]")!;
      return { reviews: el.shadowRoot!.querySelectorAll("li").length, next: el.nextElementSibling!.tagName };
    });
    expect(count).toEqual({ reviews: 3, next: "SCRIPT" });
    expect(errors).toEqual([]);
  }, 30_000);

  it("renders in an iframe without JavaScript", async () => {
    const { page: plain } = await open("/plain");
    const before = await hostState(plain);
    const { page } = await open("/iframe");
    const frame = page.frameLocator("#frame");
    await expect.poll(() => frame.locator("footer").textContent()).toBe("Showing 5★ and 4★ reviews, newest first");
    expect(await frame.locator("blockquote").allTextContents()).toEqual([
      XSS,
      "Lovely staff, painless cleaning.",
      "Friendly front desk.",
    ]);
    expect(await frame.locator("script").count()).toBe(0);
    const after = await hostState(page);
    expect(after.styles).toEqual(before.styles);
    expect(after.globals).toEqual(before.globals);
    expect(after.xss).toBeNull();
    await page.screenshot({ path: path.join(ARTIFACTS, "widget-iframe.png"), fullPage: true });
  }, 30_000);

  it("prints a review link's QR code from the bundled Worker (qrcode on workerd): SVG and PNG load as images", async () => {
    const { page, errors } = await open("/qr");
    await page.waitForFunction(() => [...(globalThis as any).document.images].every((i: any) => i.complete));
    const sizes = await page.evaluate(() =>
      [...(globalThis as any).document.images].map((i: any) => [i.id, i.naturalWidth, i.naturalHeight]),
    );
    expect(sizes[0]![1]).toBeGreaterThan(0);
    // the PNG is square, about the default 512 px (whole pixels per module)
    expect(sizes[1]![1]).toBe(sizes[1]![2]);
    expect(sizes[1]![1]).toBeGreaterThan(400);
    expect(sizes[1]![1]).toBeLessThanOrEqual(512);
    expect(errors).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS, "review-link-qr.png") });
  }, 30_000);
});
