import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { reviews } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { request } from "../helpers/http";
import { createWorld, db, type World } from "../helpers/seed";
import { auditOf, createLocation, eventually } from "../links/helpers";

let w: World;
let loc: { id: string };
const BASE = env.PUBLIC_BASE_URL.replace(/\/+$/, "");
const XSS = `<script>window.__xss=1</script><img src=x onerror="window.__xss=2"> & "quotes" 'too'`;

const ingest = (body: Record<string, unknown>) =>
  w
    .as("manager")
    .post("/v1/reviews/ingest", { locationId: loc.id, externalReviewId: newId(), ...body })
    .then((r) => {
      expect(r.status).toBe(201);
      return r.body as { id: string };
    });

const fetchRaw = (path: string) =>
  (exports as unknown as { default: Fetcher }).default.fetch(new Request(`http://localhost:8787${path}`));
const widgetJson = async (key: string) => {
  const res = await request("GET", `/w/${key}/reviews`);
  expect(res.status).toBe(200);
  return res.body as {
    reviews: { id: string; rating: number; site: string; text: string | null; isFirstParty: boolean }[];
    footer: string;
    summary: { averageRating: number; reviewCount: number };
    jsonLd: any;
    title: string;
  };
};

async function newWidget(body: Record<string, unknown>) {
  const res = await w.as("manager").post("/v1/widgets", { name: "Homepage", locationId: loc.id, ...body });
  expect(res.status).toBe(201);
  return res.body as { id: string; publicKey: string; footer: string; embed: Record<string, string> };
}

const ids = { g5old: "", g4: "", g2: "", y5: "", fp5: "", fp3: "", hidden: "", xss: "" };

beforeAll(async () => {
  w = await createWorld();
  loc = await createLocation(w.as("manager"), { name: "Smile Dental Downtown" });
  ids.g5old = (
    await ingest({
      siteType: "google",
      rating: 5,
      text: "Lovely staff",
      authorName: "Ann A.",
      publishedAt: "2026-01-01T10:00:00Z",
      externalUrl: "https://maps.google.com/r/1",
    })
  ).id;
  ids.g4 = (
    await ingest({
      siteType: "google",
      rating: 4,
      text: "Good",
      authorName: "Bob B.",
      publishedAt: "2026-03-01T10:00:00Z",
    })
  ).id;
  ids.g2 = (
    await ingest({
      siteType: "google",
      rating: 2,
      text: "Long wait",
      authorName: "Cy C.",
      publishedAt: "2026-04-01T10:00:00Z",
    })
  ).id;
  ids.y5 = (
    await ingest({
      siteType: "yelp",
      rating: 5,
      text: "Great",
      authorName: "Di D.",
      publishedAt: "2026-02-01T10:00:00Z",
    })
  ).id;
  ids.fp5 = (
    await ingest({
      siteType: "first_party",
      rating: 5,
      text: "Asked in the office",
      authorName: "Ed E.",
      publishedAt: "2026-02-15T10:00:00Z",
    })
  ).id;
  ids.fp3 = (
    await ingest({
      siteType: "first_party",
      rating: 3,
      text: "Okay",
      authorName: "Flo F.",
      publishedAt: "2026-02-16T10:00:00Z",
    })
  ).id;
  ids.hidden = (
    await ingest({
      siteType: "google",
      rating: 5,
      text: "not public",
      isPublic: false,
      publishedAt: "2026-05-01T10:00:00Z",
    })
  ).id;
});

describe("/v1/widgets", () => {
  it("creates a widget with its footer and embed codes, audited; lists and gets it", async () => {
    const created = await newWidget({ minRating: 4, sites: ["google"], count: 3 });
    expect(created).toMatchObject({
      locationId: loc.id,
      minRating: 4,
      sites: ["google"],
      count: 3,
      order: "newest",
      isActive: true,
      footer: "Showing 5★ and 4★ Google reviews, newest first",
    });
    expect(created.publicKey).toMatch(/^[a-z0-9]{16}$/);
    expect(created.embed).toEqual({
      script: `<div data-reputation-widget="${created.publicKey}"></div>\n<script src="${BASE}/w/${created.publicKey}/embed.js" async></script>`,
      iframe: `<iframe src="${BASE}/w/${created.publicKey}" title="Customer reviews" loading="lazy" style="border:0;width:100%;max-width:40rem;height:640px"></iframe>`,
      jsonUrl: `${BASE}/w/${created.publicKey}/reviews`,
      scriptUrl: `${BASE}/w/${created.publicKey}/embed.js`,
      pageUrl: `${BASE}/w/${created.publicKey}`,
    });
    expect((await auditOf(created.id, "widget.created")).length).toBe(1);
    expect((await w.as("viewer").get(`/v1/widgets/${created.id}`)).body).toEqual(created);
    expect(
      (await w.as("viewer").get(`/v1/widgets?locationId=${loc.id}`)).body.data.map((x: { id: string }) => x.id),
    ).toContain(created.id);
  });

  it("validates input (400), needs a manager (403), and another tenant's widget is 404", async () => {
    for (const body of [
      { minRating: 0 },
      { minRating: 6 },
      { count: 0 },
      { count: 51 },
      { order: "random" },
      { sites: ["Google!"] },
      { name: "" },
    ]) {
      const res = await w.as("manager").post("/v1/widgets", { name: "x", ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
    }
    const foreignLoc = await createLocation(w.as("tenantBAdmin", w.tenantB.id), {});
    const res = await w.as("manager").post("/v1/widgets", { name: "x", locationId: foreignLoc.id });
    expect(res.body.details.issues[0].path).toBe("locationId");
    expect((await w.as("tenantUser").post("/v1/widgets", { name: "x" })).status).toBe(403);
    const mine = await newWidget({});
    const b = w.as("tenantBAdmin", w.tenantB.id);
    expect((await b.get(`/v1/widgets/${mine.id}`)).status).toBe(404);
    expect((await b.patch(`/v1/widgets/${mine.id}`, { name: "y" })).status).toBe(404);
    expect((await b.delete(`/v1/widgets/${mine.id}`)).status).toBe(404);
    expect((await b.get("/v1/widgets")).body.data).toEqual([]);
  });

  it("updates and deletes (audited); a deactivated or deleted widget's public URLs are 404", async () => {
    const created = await newWidget({});
    expect((await request("GET", `/w/${created.publicKey}/reviews`)).status).toBe(200);
    const res = await w.as("manager").patch(`/v1/widgets/${created.id}`, { isActive: false, order: "best" });
    expect(res.body).toMatchObject({
      isActive: false,
      order: "best",
      footer: "Showing reviews of every rating from every site, highest rated first",
    });
    expect((await auditOf(created.id, "widget.updated")).length).toBe(1);
    await eventually(async () => (await request("GET", `/w/${created.publicKey}/reviews`)).status === 404);
    expect((await fetchRaw(`/w/${created.publicKey}/embed.js`)).status).toBe(404);
    const gone = await (exports as unknown as { default: Fetcher }).default.fetch(
      new Request(`http://localhost:8787/w/${created.publicKey}`, { headers: { accept: "text/html" } }),
    );
    expect(gone.status).toBe(404);
    expect(await gone.text()).toContain("This review widget is not available");
    expect((await request("GET", `/w/${created.publicKey}`)).body).toMatchObject({ code: "NOT_FOUND" });
    expect((await w.as("manager").delete(`/v1/widgets/${created.id}`)).status).toBe(204);
    expect((await auditOf(created.id, "widget.deleted")).length).toBe(1);
    expect((await w.as("viewer").get(`/v1/widgets/${created.id}`)).status).toBe(404);
  });
});

describe("GET /w/{key}/reviews", () => {
  it("shows the tenant's selection, newest first, and states the filters and the honest average", async () => {
    const { publicKey } = await newWidget({ minRating: 4, sites: ["google"], count: 5 });
    const d = await widgetJson(publicKey);
    expect(d.reviews.map((r) => r.id)).toEqual([ids.g4, ids.g5old]);
    expect(d.footer).toBe("Showing 5★ and 4★ Google reviews, newest first");
    expect(d.title).toBe("Smile Dental Downtown");
    // the average covers every public Google review (5, 4 and 2), not only the ones shown
    expect(d.summary).toEqual({ averageRating: 3.7, reviewCount: 3 });
    expect(d.jsonLd).toBeNull();
  });

  it("orders best first, caps the count, and spans every site when none is chosen; never shows non-public reviews", async () => {
    const { publicKey } = await newWidget({ order: "best", count: 4 });
    const d = await widgetJson(publicKey);
    // three 5-star reviews, newest first among equals, then the 4
    expect(d.reviews.map((r) => r.id)).toEqual([ids.fp5, ids.y5, ids.g5old, ids.g4]);
    expect(d.reviews.map((r) => r.id)).not.toContain(ids.hidden);
    expect(d.summary.reviewCount).toBe(6);
  });

  it("marks up first-party reviews only, with the aggregate over first-party reviews", async () => {
    const { publicKey } = await newWidget({ minRating: 4 });
    const d = await widgetJson(publicKey);
    expect(d.reviews.some((r) => r.site === "google")).toBe(true);
    expect(d.jsonLd).toEqual({
      "@context": "https://schema.org",
      "@type": "LocalBusiness",
      name: "Smile Dental Downtown",
      aggregateRating: { "@type": "AggregateRating", ratingValue: 4, reviewCount: 2, bestRating: 5, worstRating: 1 },
      review: [
        {
          "@type": "Review",
          reviewRating: { "@type": "Rating", ratingValue: 5, bestRating: 5, worstRating: 1 },
          author: { "@type": "Person", name: "Ed E." },
          datePublished: "2026-02-15",
          reviewBody: "Asked in the office",
        },
      ],
    });
  });
});

describe("escaping untrusted review text", () => {
  it("never lets review text out as markup in the page, the script or the JSON-LD", async () => {
    const other = await createLocation(w.as("manager"), { name: `Tom's <b>Diner</b>` });
    // straight into D1: the ingest API would refuse the javascript: URL, a site sync might not
    const now = new Date().toISOString();
    await db().insert(reviews).values({
      id: newId(),
      tenantId: w.tenantA.id,
      locationId: other.id,
      siteType: "first_party",
      isFirstParty: true,
      rating: 5,
      text: XSS,
      authorName: `</script><script>alert(1)</script>`,
      externalUrl: "javascript:alert(1)",
      topics: [],
      occurredAt: now,
      createdAt: now,
      updatedAt: now,
    });
    const { publicKey } = await newWidget({ locationId: other.id });
    const page = await (await fetchRaw(`/w/${publicKey}`)).text();
    expect(page).not.toContain("<script");
    expect(page).not.toContain("<img");
    expect(page).not.toContain("<b>");
    expect(page).not.toContain("javascript:");
    expect(page).toContain(
      "&lt;script&gt;window.__xss=1&lt;/script&gt;&lt;img src=x onerror=&quot;window.__xss=2&quot;&gt; &amp; &quot;quotes&quot; &#39;too&#39;",
    );
    const js = await (await fetchRaw(`/w/${publicKey}/embed.js`)).text();
    expect(js).not.toMatch(/<\/?script/i);
    expect(js).not.toContain("<img");
    expect(js).not.toContain("javascript:");
    const d = await widgetJson(publicKey);
    expect(d.reviews[0]!.text).toBe(XSS);
    expect((d.reviews[0] as unknown as { url: string | null }).url).toBeNull();
    expect(d.jsonLd.review[0].reviewBody).toBe(XSS);
  });
});

describe("caching and purge", () => {
  it("serves from cache, and a new review (review.created) purges it", async () => {
    const other = await createLocation(w.as("manager"), { name: "Cache St" });
    const { publicKey } = await newWidget({ locationId: other.id });
    expect((await widgetJson(publicKey)).reviews).toEqual([]);
    // written behind the service's back (no event): the cached answer does not change
    const now = new Date().toISOString();
    await db().insert(reviews).values({
      id: newId(),
      tenantId: w.tenantA.id,
      locationId: other.id,
      siteType: "google",
      rating: 5,
      text: "quiet",
      topics: [],
      occurredAt: now,
      createdAt: now,
      updatedAt: now,
    });
    expect((await widgetJson(publicKey)).reviews).toEqual([]);
    // a review through the service emits review.created, whose handler purges the widget
    await w
      .as("manager")
      .post("/v1/reviews/ingest", { locationId: other.id, siteType: "yelp", rating: 4, text: "loud" });
    const after = await eventually(async () => {
      const d = await widgetJson(publicKey);
      return d.reviews.length === 2 ? d : null;
    });
    expect(after.reviews.map((r) => r.text).sort()).toEqual(["loud", "quiet"]);
  });

  it("answers with public cache headers; the iframe page may be framed and runs no script", async () => {
    const { publicKey } = await newWidget({});
    const json = await fetchRaw(`/w/${publicKey}/reviews`);
    expect(json.headers.get("cache-control")).toBe("public, max-age=60");
    expect(json.headers.get("access-control-allow-origin")).toBe("*");
    const js = await fetchRaw(`/w/${publicKey}/embed.js`);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const page = await fetchRaw(`/w/${publicKey}`);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors *");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(page.headers.get("x-frame-options")).toBeNull();
    expect((await fetchRaw(`/w/nope/reviews`)).status).toBe(404);
    // other HTML pages still refuse framing
    const html = await (exports as unknown as { default: Fetcher }).default.fetch(
      new Request("http://localhost:8787/l/nope", { headers: { accept: "text/html" } }),
    );
    expect(html.headers.get("x-frame-options")).toBe("DENY");
  });
});

describe("MCP skill review.widgets", () => {
  it("lists the tenant's widgets with their footer, embed code and what they show; only the tenant's", async () => {
    const { connect, structured } = await import("../mcp/helpers");
    const other = await createLocation(w.as("manager"), { name: "Skill St" });
    await w
      .as("manager")
      .post("/v1/reviews/ingest", { locationId: other.id, siteType: "google", rating: 5, text: "Skillful" });
    const widget = await newWidget({ locationId: other.id, minRating: 5, sites: ["google"] });
    await w.as("tenantBAdmin", w.tenantB.id).post("/v1/widgets", { name: "B's widget" });
    const key = (await w.as("tenantAdmin").post("/v1/api-keys", { name: "mcp", scopes: ["read:reviews"] })).body
      .key as string;
    const { client } = await connect({ token: key });
    const out = structured(await client.callTool({ name: "review.widgets", arguments: { locationId: other.id } }));
    expect(out.data).toHaveLength(1);
    expect(out.data[0]).toMatchObject({
      id: widget.id,
      footer: "Showing 5★ Google reviews, newest first",
      embed: widget.embed,
      showing: {
        summary: { averageRating: 5, reviewCount: 1 },
        reviews: [{ text: "Skillful", rating: 5, site: "google" }],
      },
    });
    const all = structured(await client.callTool({ name: "review.widgets", arguments: { limit: 20 } }));
    expect(all.data.every((x: { tenantId: string }) => x.tenantId === w.tenantA.id)).toBe(true);
  });
});

describe("white label", () => {
  it("wears the tenant's white label (colours, name in the footer) once set, and nothing of the platform before", async () => {
    const widget = await newWidget({ name: "Branded", minRating: 1 });
    const plain = await widgetJson(widget.publicKey);
    expect((plain as any).brand).toBeNull();
    expect(await (await fetchRaw(`/w/${widget.publicKey}`)).text()).not.toContain("Reviews by");

    const put = await w
      .as("tenantAdmin")
      .put("/v1/branding", { name: "Acme Agency <b>", primaryColor: "#7C3AED", accentColor: "#0F766E" });
    expect(put.status).toBe(200);
    // a widget edit purges its cache (the brand is read when the widget is built)
    expect((await w.as("manager").patch(`/v1/widgets/${widget.id}`, { name: "Branded again" })).status).toBe(200);
    await eventually(async () =>
      expect(((await widgetJson(widget.publicKey)) as any).brand).toEqual({
        name: "Acme Agency <b>",
        primaryColor: "#7c3aed",
        accentColor: "#0f766e",
      }),
    );
    const page = await (await fetchRaw(`/w/${widget.publicKey}`)).text();
    expect(page).toContain("Reviews by Acme Agency &lt;b&gt;");
    expect(page).not.toContain("Acme Agency <b>");
    expect(page).toContain(".rw .stars{color:#7c3aed}");
    expect(page).toContain(".rw{border-top:4px solid #0f766e}");
    expect(await (await fetchRaw(`/w/${widget.publicKey}/embed.js`)).text()).toContain("Reviews by Acme Agency");
    expect((await w.as("tenantAdmin").delete("/v1/branding")).status).toBe(204);
  });
});
