import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { linkClicks, reviewLinkClicks } from "../../src/db/schema";
import worker from "../../src/index";
import { chooseSite } from "../../src/modules/review-links/chooser";
import type { ReviewLinkClick } from "../../src/modules/review-links/clicks";
import { request } from "../helpers/http";
import { createWorld, db, type World } from "../helpers/seed";
import { auditOf, createContact, createLocation, eventually, seedSolicitation } from "../links/helpers";

let w: World;
const BASE = env.PUBLIC_BASE_URL.replace(/\/+$/, "");
const PROFILE = {
  googlePlaceId: "ChIJ-counter/9",
  yelpUrl: "https://www.yelp.com/biz/acme-counter",
  facebookPageId: "acmecounter",
};
const GOOGLE = "https://search.google.com/local/writereview?placeid=ChIJ-counter%2F9";
const FACEBOOK = "https://www.facebook.com/acmecounter/reviews";

beforeAll(async () => {
  w = await createWorld();
});

const fetchRaw = (path: string) =>
  (exports as unknown as { default: Fetcher }).default.fetch(
    new Request(`http://localhost:8787${path}`, { redirect: "manual" }),
  );
const clicksOfLink = (id: string) => db().select().from(reviewLinkClicks).where(eq(reviewLinkClicks.reviewLinkId, id));

async function newLink(weights: Record<string, number>, fields: Record<string, unknown> = PROFILE) {
  const loc = await createLocation(w.as("manager"), fields);
  const res = await w.as("manager").post("/v1/review-links", { locationId: loc.id, name: "Front desk", weights });
  expect(res.status).toBe(201);
  return { loc, link: res.body as { id: string; slug: string; url: string; qrSvgUrl: string; qrPngUrl: string } };
}

describe("chooseSite", () => {
  it("splits by the weights, skips sites without a page, and is null with nothing to send to", () => {
    const all = { google: "g", yelp: "y", facebook: "f" };
    const w7 = { google: 70, facebook: 30 };
    expect(chooseSite(w7, all, 0)).toBe("google");
    expect(chooseSite(w7, all, 0.699)).toBe("google");
    expect(chooseSite(w7, all, 0.7)).toBe("facebook");
    expect(chooseSite(w7, all, 0.9999)).toBe("facebook");
    // facebook missing: its share goes to the others
    expect(chooseSite(w7, { google: "g" }, 0.9)).toBe("google");
    expect(chooseSite({ facebook: 5, google: 0 }, { google: "g" }, 0.1)).toBeNull();
    // Yelp forbids asking for reviews: an older link's yelp weight never sends anyone there
    const old = { google: 70, yelp: 20, facebook: 10 };
    for (const r of [0.7, 0.8, 0.899]) expect(chooseSite(old, all, r)).not.toBe("yelp");
    expect(chooseSite({ yelp: 5 }, all, 0.1)).toBeNull();
  });
});

describe("GET /v1/locations/{id}/review-urls", () => {
  it("gives the Google write-a-review URL from the place id and the other sites' pages", async () => {
    const loc = await createLocation(w.as("manager"), PROFILE);
    const res = await w.as("viewer").get(`/v1/locations/${loc.id}/review-urls`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      locationId: loc.id,
      googlePlaceId: "ChIJ-counter/9",
      google: GOOGLE,
      yelp: PROFILE.yelpUrl,
      facebook: FACEBOOK,
    });
  });

  it("is null for sites that are not set up, and 404 for another tenant's location", async () => {
    const loc = await createLocation(w.as("manager"), {});
    expect((await w.as("viewer").get(`/v1/locations/${loc.id}/review-urls`)).body).toMatchObject({
      google: null,
      yelp: null,
      facebook: null,
      googlePlaceId: null,
    });
    const other = await w.as("tenantBAdmin", w.tenantB.id).get(`/v1/locations/${loc.id}/review-urls`);
    expect(other.status).toBe(404);
  });
});

describe("/v1/review-links", () => {
  it("creates a link with its public URL and QR URLs, audited; lists and gets it", async () => {
    const { loc, link } = await newLink({ google: 3, facebook: 1 });
    expect(link).toMatchObject({
      locationId: loc.id,
      name: "Front desk",
      weights: { google: 3, facebook: 1 },
      isActive: true,
      tenantId: w.tenantA.id,
    });
    expect(link.slug).toMatch(/^[a-z0-9]{12}$/);
    expect(link.url).toBe(`${BASE}/l/${link.slug}`);
    expect(link.qrSvgUrl).toBe(`${BASE}/l/${link.slug}/qr?format=svg`);
    expect(link.qrPngUrl).toBe(`${BASE}/l/${link.slug}/qr?format=png`);
    expect((await auditOf(link.id, "review_link.created")).length).toBe(1);
    const list = await w.as("viewer").get(`/v1/review-links?locationId=${loc.id}`);
    expect(list.body.data.map((l: { id: string }) => l.id)).toEqual([link.id]);
    expect(list.body.total).toBe(1);
    expect((await w.as("viewer").get(`/v1/review-links/${link.id}`)).body).toEqual(link);
  });

  it("rejects bad weights, unknown sites and another tenant's location (400), and non-managers (403)", async () => {
    const loc = await createLocation(w.as("manager"), PROFILE);
    const bad = [{ google: 0 }, {}, { google: -1 }, { google: 1.5 }, { tripadvisor: 5 }];
    for (const weights of bad) {
      const res = await w.as("manager").post("/v1/review-links", { locationId: loc.id, weights });
      expect(res.status, JSON.stringify(weights)).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
    }
    const foreign = await createLocation(w.as("tenantBAdmin", w.tenantB.id), PROFILE);
    const res = await w.as("manager").post("/v1/review-links", { locationId: foreign.id, weights: { google: 1 } });
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0].path).toBe("locationId");
    expect(
      (await w.as("tenantUser").post("/v1/review-links", { locationId: loc.id, weights: { google: 1 } })).status,
    ).toBe(403);
  });

  it("updates and deletes (audited); another tenant's link is 404 everywhere", async () => {
    const { link } = await newLink({ google: 1 });
    const b = w.as("tenantBAdmin", w.tenantB.id);
    expect((await b.get(`/v1/review-links/${link.id}`)).status).toBe(404);
    expect((await b.patch(`/v1/review-links/${link.id}`, { name: "x" })).status).toBe(404);
    expect((await b.get(`/v1/review-links/${link.id}/stats`)).status).toBe(404);
    expect((await b.delete(`/v1/review-links/${link.id}`)).status).toBe(404);
    expect((await b.get(`/v1/review-links`)).body.data.some((l: { id: string }) => l.id === link.id)).toBe(false);

    const res = await w.as("manager").patch(`/v1/review-links/${link.id}`, { name: "Till", weights: { facebook: 2 } });
    expect(res.body).toMatchObject({ name: "Till", weights: { facebook: 2 }, slug: link.slug });
    expect((await auditOf(link.id, "review_link.updated"))[0]).toMatchObject({ action: "review_link.updated" });
    expect((await w.as("manager").delete(`/v1/review-links/${link.id}`)).status).toBe(204);
    expect((await auditOf(link.id, "review_link.deleted")).length).toBe(1);
    expect((await w.as("viewer").get(`/v1/review-links/${link.id}`)).status).toBe(404);
    expect((await request("GET", `/l/${link.slug}`)).status).toBe(404);
  });
});

describe("GET /l/{slug}", () => {
  it("redirects by the weights and records each open with its site and source", async () => {
    const { link } = await newLink({ google: 1, facebook: 1 });
    const targets: string[] = [];
    for (let i = 0; i < 40; i++) {
      // 40 visitors (one open counts per visitor and window: "counting opens" below)
      const res = await request("GET", `/l/${link.slug}${i % 4 === 0 ? "?src=qr" : ""}`, {
        headers: { "cf-connecting-ip": `198.51.100.${i}` },
      });
      expect(res.status).toBe(302);
      expect(res.headers.get("cache-control")).toBe("no-store");
      targets.push(res.headers.get("location")!);
    }
    expect(new Set(targets)).toEqual(new Set([GOOGLE, FACEBOOK]));
    const rows = await eventually(async () =>
      (await clicksOfLink(link.id)).length === 40 ? clicksOfLink(link.id) : null,
    );
    expect(rows.filter((r) => r.source === "qr")).toHaveLength(10);
    expect(rows.filter((r) => r.source === "link")).toHaveLength(30);
    // each row records where that open was sent
    expect(rows.filter((r) => r.site === "google")).toHaveLength(targets.filter((t) => t === GOOGLE).length);
    const stats = await w.as("viewer").get(`/v1/review-links/${link.id}/stats`);
    expect(stats.body).toEqual({
      reviewLinkId: link.id,
      total: 40,
      unit: "visit",
      visitWindowMinutes: 30,
      bySource: { link: 30, qr: 10 },
      bySite: Object.fromEntries(
        ["google", "facebook"].map((s) => [s, rows.filter((r) => r.site === s).length]).filter(([, n]) => n),
      ),
    });
    const future = await w
      .as("viewer")
      .get(`/v1/review-links/${link.id}/stats?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
    expect(future.body).toMatchObject({ total: 0, bySource: { link: 0, qr: 0 }, bySite: {} });
  });

  it("sends everyone to the only site with weight, and shares a missing site's weight out", async () => {
    const { link } = await newLink({ google: 5, facebook: 5 }, { facebookPageId: "onlyfb" });
    for (let i = 0; i < 10; i++)
      expect((await request("GET", `/l/${link.slug}`)).headers.get("location")).toBe(
        "https://www.facebook.com/onlyfb/reviews",
      );
  });

  it("is a 404 page when deactivated, unknown, its location inactive, or no weighted site has a page", async () => {
    const { link } = await newLink({ google: 1 });
    await w.as("manager").patch(`/v1/review-links/${link.id}`, { isActive: false });
    const off = await request("GET", `/l/${link.slug}`, { headers: { accept: "text/html,application/xhtml+xml" } });
    expect(off.status).toBe(404);
    expect(off.headers.get("content-type")).toContain("text/html");
    expect(off.text).toContain("This link is no longer active");
    const unknown = await request("GET", `/l/zzzzzzzzzzzz`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "NOT_FOUND", details: { reason: "link_unknown" } });
    await w.as("manager").patch(`/v1/review-links/${link.id}`, { isActive: true });
    expect((await request("GET", `/l/${link.slug}`)).status).toBe(302);
    // the location's data is cached for minutes (docs/links.md): deactivate one never opened yet
    const { loc: closed, link: closedLink } = await newLink({ google: 1 });
    await w.as("manager").patch(`/v1/locations/${closed.id}`, { isActive: false });
    expect((await request("GET", `/l/${closedLink.slug}`)).body).toMatchObject({
      code: "NOT_FOUND",
      details: { reason: "location_inactive" },
    });
    const { link: fbOnly } = await newLink({ facebook: 1 }, { googlePlaceId: "ChIJ-no-fb" });
    expect((await request("GET", `/l/${fbOnly.slug}`)).body).toMatchObject({
      code: "NOT_FOUND",
      details: { reason: "no_review_site" },
    });
    // a yelp weight is refused: Yelp forbids asking for reviews
    const withYelp = await createLocation(w.as("manager"), PROFILE);
    const yelp = await w
      .as("manager")
      .post("/v1/review-links", { locationId: withYelp.id, weights: { google: 1, yelp: 1 } });
    expect(yelp.status).toBe(400);
    expect(yelp.body.details.issues).toEqual([
      { path: "weights.yelp", message: expect.stringContaining("Yelp forbids asking customers for reviews") },
    ]);
  });
});

describe("counting opens (issue #30: one client's 30 requests counted 30)", () => {
  const total = async (id: string) => (await w.as("viewer").get(`/v1/review-links/${id}/stats`)).body.total as number;
  /** Waits for `n` counted opens; a marker visitor's open comes last, so anything counted before it has been flushed too. */
  const settle = async (link: { id: string; slug: string }, n: number) => {
    expect(
      (
        await request("GET", `/l/${link.slug}`, {
          headers: { "cf-connecting-ip": "203.0.113.250", "user-agent": "marker" },
        })
      ).status,
    ).toBe(302);
    const { counted } = await eventually(async () => {
      const t = await total(link.id);
      return t >= n + 1 && { counted: t - 1 };
    });
    return counted;
  };
  const phone = {
    "cf-connecting-ip": "203.0.113.7",
    "user-agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0) Safari/604.1",
  };

  it("counts one open per visitor and window however often it reloads; every request is still redirected", async () => {
    const { link } = await newLink({ google: 1 });
    for (let i = 0; i < 30; i++) expect((await request("GET", `/l/${link.slug}`, { headers: phone })).status).toBe(302);
    expect(await settle(link, 1)).toBe(1);
    const stats = await w.as("viewer").get(`/v1/review-links/${link.id}/stats`);
    expect(stats.body).toMatchObject({ total: 2, unit: "visit", visitWindowMinutes: 30 });
  });

  it("does not count HEAD requests, prefetches, prerenders or link-preview bots", async () => {
    const { link } = await newLink({ google: 1 });
    const ip = (n: number) => `203.0.113.${n}`;
    expect((await request("HEAD", `/l/${link.slug}`, { headers: { "cf-connecting-ip": ip(1) } })).status).toBe(302);
    for (const [n, headers] of [
      [2, { "sec-purpose": "prefetch" }],
      [3, { "sec-purpose": "prefetch;prerender" }],
      [4, { purpose: "prefetch" }],
      [5, { "x-moz": "prefetch" }],
      [6, { "user-agent": "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)" }],
      [7, { "user-agent": "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)" }],
      [8, { "user-agent": "WhatsApp/2.23.20.0" }],
      [9, { "user-agent": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)" }],
    ] as const) {
      const res = await request("GET", `/l/${link.slug}`, { headers: { "cf-connecting-ip": ip(n), ...headers } });
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe(GOOGLE);
    }
    expect(await settle(link, 0)).toBe(0);
  });

  it("one IP address counts at most 20 opens per window, whatever user agents it sends", async () => {
    const { link } = await newLink({ google: 1 });
    for (let i = 0; i < 25; i++)
      await request("GET", `/l/${link.slug}`, {
        headers: { "cf-connecting-ip": "203.0.113.99", "user-agent": `agent-${i}` },
      });
    expect(await settle(link, 20)).toBe(20);
  });

  it("the counted click's id is the visit's: another isolate's copy of the same visit is the same row, the next window a new one", async () => {
    const { countedClickId, forgetVisits, CLICK_WINDOW_MS } = await import("../../src/modules/links/clicks");
    const visit = {
      method: "GET",
      header: (n: string) => ({ "cf-connecting-ip": "203.0.113.5", "user-agent": "ua" })[n],
    };
    const t = Math.floor(Date.now() / CLICK_WINDOW_MS) * CLICK_WINDOW_MS + 1_000;
    const first = await countedClickId(env.JWT_SECRET!, visit, "review-link:x", t);
    expect(first).toMatch(/^v_[A-Za-z0-9_-]{22}$/);
    expect(await countedClickId(env.JWT_SECRET!, visit, "review-link:x", t + 60_000)).toBeNull();
    forgetVisits(); // as if another isolate answered
    expect(await countedClickId(env.JWT_SECRET!, visit, "review-link:x", t + 60_000)).toBe(first);
    const next = await countedClickId(env.JWT_SECRET!, visit, "review-link:x", t + CLICK_WINDOW_MS);
    expect(next).not.toBeNull();
    expect(next).not.toBe(first);
    expect(await countedClickId(env.JWT_SECRET!, visit, "review-link:y", t + CLICK_WINDOW_MS)).not.toBe(next);
  });
});

describe("QR codes", () => {
  it("serves the link's QR code as SVG and PNG, encoding the link with src=qr", async () => {
    const { link } = await newLink({ google: 1 });
    const svg = await fetchRaw(`/l/${link.slug}/qr?format=svg`);
    expect(svg.status).toBe(200);
    expect(svg.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
    expect(svg.headers.get("cache-control")).toBe("public, max-age=86400");
    const svgText = await svg.text();
    expect(svgText).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svgText).not.toMatch(/<script/i);
    const png = await fetchRaw(`/l/${link.slug}/qr?format=png&size=300`);
    expect(png.headers.get("content-type")).toBe("image/png");
    const bytes = new Uint8Array(await png.arrayBuffer());
    expect([...bytes.slice(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
    const width = new DataView(bytes.buffer).getUint32(16);
    expect(width).toBeGreaterThan(250);
    expect(width).toBeLessThanOrEqual(300);
    // the same text encodes to the same modules: the SVG matches one made from the expected URL
    const { qrSvg } = await import("../../src/lib/qr");
    expect(svgText).toBe(await qrSvg(`${BASE}/l/${link.slug}?src=qr`));
    expect(svgText).not.toBe(await qrSvg(`${BASE}/l/${link.slug}`));
    expect((await fetchRaw(`/l/${link.slug}/qr?format=gif`)).status).toBe(400);
    expect((await fetchRaw(`/l/nope/qr`)).status).toBe(404);
  });

  it("serves any solicitation short link's QR code; a scan is a click with source qr", async () => {
    const loc = await createLocation(w.as("manager"), PROFILE);
    const contact = await createContact(w.as("manager"));
    const s = await seedSolicitation({
      tenantId: w.tenantA.id,
      locationId: loc.id,
      contactId: contact.id,
      destination: "google",
    });
    const svg = await (await fetchRaw(`/v1/r/${s.token}/qr`)).text();
    const { qrSvg } = await import("../../src/lib/qr");
    expect(svg).toBe(await qrSvg(`${BASE}/v1/r/${s.token}?redirect=1&src=qr`));
    expect((await fetchRaw(`/v1/r/${s.token.slice(0, -2)}xx/qr`)).status).toBe(404);
    // two visitors (one click counts per visitor and window)
    const res = await request("GET", `/v1/r/${s.token}?redirect=1&src=qr`, {
      headers: { "cf-connecting-ip": "198.51.100.201" },
    });
    expect(res.headers.get("location")).toBe(GOOGLE);
    await request("GET", `/v1/r/${s.token}?redirect=1`, { headers: { "cf-connecting-ip": "198.51.100.202" } });
    const rows = await eventually(async () => {
      const r = await db().select().from(linkClicks).where(eq(linkClicks.solicitationId, s.id));
      return r.length === 2 ? r : null;
    });
    expect(rows.map((r) => r.source).sort()).toEqual(["qr", "redirect"]);
  });
});

describe("the CLICKS consumer with review-link clicks", () => {
  it("records them once under redelivery and drops a forged tenant pair", async () => {
    const { link } = await newLink({ google: 1 });
    const click = (id: string, tenantId = w.tenantA.id): ReviewLinkClick => ({
      id,
      tenantId,
      reviewLinkId: link.id,
      site: "google",
      source: "qr",
      at: new Date().toISOString(),
    });
    const body = {
      reviewLinkClicks: [
        click(crypto.randomUUID()),
        click(crypto.randomUUID()),
        click(crypto.randomUUID(), w.tenantB.id),
      ],
    };
    for (let round = 0; round < 2; round++) {
      const batch = createMessageBatch("clicks", [{ id: `m${round}`, timestamp: new Date(), attempts: 1, body }]);
      const ctx = createExecutionContext();
      await worker.queue!(batch, env as never, ctx);
      const result = await getQueueResult(batch, ctx);
      expect(result.explicitAcks).toEqual([`m${round}`]);
    }
    expect(await clicksOfLink(link.id)).toHaveLength(2);
  });
});

describe("MCP skill location.review-links", () => {
  it("returns the location's review URLs and links with their opens; another tenant's location is an error", async () => {
    const { connect, structured } = await import("../mcp/helpers");
    const { link, loc } = await newLink({ google: 1 });
    await request("GET", `/l/${link.slug}?src=qr`);
    await eventually(async () => (await clicksOfLink(link.id)).length === 1);
    const key = (await w.as("tenantAdmin").post("/v1/api-keys", { name: "mcp", scopes: ["read:locations"] })).body
      .key as string;
    const { client } = await connect({ token: key });
    const out = structured(await client.callTool({ name: "location.review-links", arguments: { locationId: loc.id } }));
    expect(out.reviewUrls).toMatchObject({ google: GOOGLE, facebook: FACEBOOK });
    expect(out.reviewLinks).toHaveLength(1);
    expect(out.reviewLinks[0]).toMatchObject({
      id: link.id,
      url: link.url,
      qrPngUrl: link.qrPngUrl,
      clicks: { total: 1, bySource: { link: 0, qr: 1 }, bySite: { google: 1 } },
    });
    const foreign = await createLocation(w.as("tenantBAdmin", w.tenantB.id), PROFILE);
    const res = (await client.callTool({ name: "location.review-links", arguments: { locationId: foreign.id } })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toContain("not found");
  });
});
