// The custom-host boundary (docs/SECURITY.md "Custom hosts"): every operation of the OpenAPI document
// that needs no credential is requested on another agency's active custom hostname with a resource of
// a tenant that host does not serve, and must be a 404; the same request with the host's own tenant,
// and the foreign one on the platform's host, are served. A public operation that is neither listed
// here with its fixture nor declared host-neutral (serving no tenant's resource) fails the first test,
// so a new public route cannot skip the rule.
import { env, exports } from "cloudflare:workers";
import { and, eq, gte } from "drizzle-orm";
import { Hono } from "hono";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AppEnv } from "../../src/app-env";
import { customHostnames, reviewLinkClicks } from "../../src/db/schema";
import { controlDb } from "../../src/db/shards";
import { onError } from "../../src/lib/error-handler";
import { newId } from "../../src/lib/ids";
import { nowIso } from "../../src/lib/time";
import { isHostNeutralPath, publicHost } from "../../src/middleware/public-host";
import { mintAlertUnsubscribeToken } from "../../src/modules/alerts/tokens";
import { clearIsolateLinkCaches } from "../../src/modules/links/location-cache";
import { forgetWhiteLabels } from "../../src/modules/white-label/resolve";
import { countRoundTrips } from "../helpers/d1-counter";
import { operations } from "../helpers/openapi";
import { createWorld, db, shardOf, type World } from "../helpers/seed";
import { createContact, createLocation, eventually, seedSolicitation } from "../links/helpers";
import { logoForm } from "./helpers";

const HOST = "reviews.guarded-agency.test";
/** agency A's second custom host, an internationalised name: stored as the URL parser spells it (punycode) */
const IDN_HOST = "xn--bcher-kva.guarded-agency.test";
/**
 * Every way a client may spell agency A's custom hosts in a request (docs/white-label.md, Host routing):
 * case, a trailing dot (a fully qualified name: `Host: reviews.tenant-a.test.` once served every tenant),
 * a port, and the Unicode form of an IDNA name. Each must be that host.
 */
const SPELLINGS = [
  HOST,
  HOST.toUpperCase(),
  `${HOST}.`,
  "Reviews.Guarded-Agency.TEST.",
  `${HOST}:8443`,
  `${HOST}.:8443`,
  IDN_HOST,
  "bücher.guarded-agency.test",
  "BÜCHER.Guarded-Agency.test.:8443",
];
const PLATFORM = new URL(env.PUBLIC_BASE_URL).host;
const BRAND_COLOUR = "#0e7490";
const worker = (exports as unknown as { default: Fetcher }).default;

/** One tenant's public resources: a feedback short link and its unsubscribe link, a review link, a widget, an alert email's unsubscribe link. */
interface Owned {
  token: string;
  unsubscribeToken: string;
  slug: string;
  widgetKey: string;
  alertToken: string;
  /** the tenant's uploaded logo's file name */
  logoFile: string;
}

type Call = { path: string; init?: RequestInit };
const json = (method: string, body?: unknown): RequestInit => ({
  method,
  headers: { accept: "application/json", ...(body === undefined ? {} : { "content-type": "application/json" }) },
  body: body === undefined ? undefined : JSON.stringify(body),
});
const form = (fields: Record<string, string>): RequestInit => ({ method: "POST", body: new URLSearchParams(fields) });

/** Every public operation that serves a tenant's resource, with the request that names one of `r`'s. */
const OWNED: Record<string, (r: Owned) => Call> = {
  "GET /v1/f/{token}": (r) => ({ path: `/v1/f/${r.token}` }),
  "POST /v1/f/{token}": (r) => ({ path: `/v1/f/${r.token}`, init: json("POST", { rating: 5 }) }),
  "GET /v1/r/{token}": (r) => ({ path: `/v1/r/${r.token}` }),
  "GET /v1/r/{token}/qr": (r) => ({ path: `/v1/r/${r.token}/qr` }),
  "PATCH /v1/r/{token}/click": (r) => ({ path: `/v1/r/${r.token}/click`, init: { method: "PATCH" } }),
  "GET /unsubscribe/{token}": (r) => ({ path: `/unsubscribe/${r.unsubscribeToken}`, init: json("GET") }),
  "POST /unsubscribe/{token}": (r) => ({ path: `/unsubscribe/${r.unsubscribeToken}`, init: json("POST") }),
  "DELETE /unsubscribe/{token}": (r) => ({ path: `/unsubscribe/${r.unsubscribeToken}`, init: json("DELETE") }),
  "GET /l/{slug}": (r) => ({ path: `/l/${r.slug}` }),
  "GET /l/{slug}/qr": (r) => ({ path: `/l/${r.slug}/qr` }),
  "GET /w/{key}": (r) => ({ path: `/w/${r.widgetKey}` }),
  "GET /brand-logos/{file}": (r) => ({ path: `/brand-logos/${r.logoFile}` }),
  "GET /w/{key}/reviews": (r) => ({ path: `/w/${r.widgetKey}/reviews` }),
  "GET /w/{key}/embed.js": (r) => ({ path: `/w/${r.widgetKey}/embed.js` }),
  "GET /alerts/unsubscribe/{token}": (r) => ({ path: `/alerts/unsubscribe/${r.alertToken}`, init: json("GET") }),
  "POST /alerts/unsubscribe/{token}": (r) => ({ path: `/alerts/unsubscribe/${r.alertToken}`, init: json("POST") }),
};

/** The hosted feedback pages: HTML routes outside the OpenAPI document, held to the same rule. */
const PAGES: Record<string, (r: Owned) => Call> = {
  "GET /f/{token}": (r) => ({ path: `/f/${r.token}` }),
  "POST /f/{token}": (r) => ({ path: `/f/${r.token}`, init: form({ rating: "4" }) }),
  "GET /f/{token}/thanks": (r) => ({ path: `/f/${r.token}/thanks` }),
};

/** Public operations that serve no tenant's resource: they answer on every host as on the platform's. */
const NEUTRAL: Record<string, string> = {
  "GET /health": "the platform's status",
  "POST /bootstrap": "creates the platform's first tenant once",
  "POST /auth/login": "sign-in by credentials: the account, not the host, decides",
  "POST /auth/setup-password": "an invite token for an account, not a public page",
  "POST /auth/forgot-password": "sign-in flow",
  "POST /auth/reset-password": "sign-in flow",
  "GET /auth/saml/{tenantSlug}/metadata":
    "SAML: the platform's service provider (entity and ACS on PUBLIC_BASE_URL), like OAuth",
  "GET /auth/saml/{tenantSlug}/init": "SAML sign-in flow, bound to PUBLIC_BASE_URL",
  "POST /auth/saml/{tenantSlug}/callback": "SAML sign-in flow, bound to PUBLIC_BASE_URL",
  "POST /webhooks/providers/{provider}": "signed by the provider, not a page",
  "GET /webhooks/providers/{provider}": "the provider's verification handshake",
  "POST /webhooks/review-sites/trustpilot/{integrationId}":
    "a review site's webhook, authorised by the integration's own secret, not a page",
  "GET /mcp/skills": "the MCP catalogue (no tenant data)",
  "GET /skills": "the MCP catalogue (no tenant data)",
  "GET /mcp/health": "MCP status",
  "GET /mcp/icon.svg": "the MCP server's icon",
  "GET /oauth/authorize": "OAuth stays on PUBLIC_BASE_URL (refused in the host's brand on a custom host)",
  "POST /oauth/token": "OAuth token endpoint",
  "GET /docs": "API documentation",
  "GET /docs/openapi.json": "API documentation",
};

let w: World;
let own: Owned;
let foreign: Owned;

const on = (host: string, c: Call) =>
  worker.fetch(new Request(`https://${host}${c.path}`, { redirect: "manual", ...c.init }));
const onPlatform = (c: Call) =>
  worker.fetch(new Request(`${env.PUBLIC_BASE_URL.replace(/\/+$/, "")}${c.path}`, { redirect: "manual", ...c.init }));

async function resources(
  as: ReturnType<World["as"]>,
  admin: ReturnType<World["as"]>,
  tenant: World["tenantA"],
): Promise<Owned> {
  const tenantId = tenant.id;
  const loc = await createLocation(as, { googlePlaceId: `ChIJ-${newId()}` });
  const contact = await createContact(as);
  const s = await seedSolicitation({
    tenantId,
    locationId: loc.id,
    contactId: contact.id,
    destination: "feedback",
    db: shardOf(tenant),
  });
  const link = await as.post("/v1/review-links", { locationId: loc.id, weights: { google: 1 } });
  const widget = await as.post("/v1/widgets", { name: "Homepage", locationId: loc.id });
  const sub = await as.post("/v1/alert-subscriptions", {
    locationId: loc.id,
    instantEmail: true,
    digestFrequency: "daily",
  });
  const logo = await admin.post("/v1/branding/logo", logoForm());
  expect([link.status, widget.status, sub.status, logo.status]).toEqual([201, 201, 201, 200]);
  const alertToken = await mintAlertUnsubscribeToken(env.JWT_SECRET!, {
    tenantId,
    subscriptionId: sub.body.id,
    kind: "digest",
  });
  return {
    token: s.token,
    unsubscribeToken: s.unsubscribeToken,
    slug: link.body.slug,
    widgetKey: widget.body.publicKey,
    alertToken,
    logoFile: (logo.body.override.logoUrl as string).split("/").pop()!,
  };
}

beforeAll(async () => {
  // the foreign tenant lives on shard 1: its slug, key and token are found across shards, its agency on the control plane
  w = await createWorld({ shardB: 1 });
  await w
    .as("agencyAdmin")
    .put(`/agency/agencies/${w.agencyA.id}/branding`, { name: "Guarded Reviews", primaryColor: BRAND_COLOUR });
  const now = nowIso();
  // tenant A's agency owns the hosts; tenant B belongs to another agency
  const host = (hostname: string) => ({
    id: newId(),
    scope: "agency" as const,
    scopeId: w.agencyA.id,
    agencyId: w.agencyA.id,
    hostname,
    providerId: newId(),
    status: "active",
    sslStatus: "active",
    // ownership proven (docs/white-label.md, Ownership): the host is in use
    verification: {},
    ownershipToken: "rops-verify=test",
    verifiedAt: now,
    activatedAt: now,
    lastCheckedAt: now,
    createdAt: now,
    updatedAt: now,
  });
  await db()
    .insert(customHostnames)
    .values([host(HOST), host(IDN_HOST)]);
  own = await resources(w.as("manager"), w.as("tenantAdmin"), w.tenantA);
  foreign = await resources(w.as("tenantBAdmin", w.tenantB.id), w.as("tenantBAdmin", w.tenantB.id), w.tenantB);
});
beforeEach(() => {
  forgetWhiteLabels();
  clearIsolateLinkCaches();
});

const publicOperations = () =>
  operations()
    .filter((o) => !o.op.security?.length)
    .map((o) => `${o.method.toUpperCase()} ${o.path}`)
    .sort();

describe("the public operations of the OpenAPI document", () => {
  it("are each either held to the host's owner (with a fixture here) or declared host-neutral", () => {
    expect(publicOperations()).toEqual([...Object.keys(OWNED), ...Object.keys(NEUTRAL)].sort());
    // the middleware agrees: what this test calls neutral is exempt there, and nothing else is
    for (const key of Object.keys(NEUTRAL)) expect(isHostNeutralPath(key.split(" ")[1]!), key).toBe(true);
    for (const key of [...Object.keys(OWNED), ...Object.keys(PAGES)])
      expect(isHostNeutralPath(key.split(" ")[1]!), key).toBe(false);
  });

  it.each(Object.keys({ ...OWNED, ...PAGES }))(
    "%s: another agency's tenant is 404 on the custom host; its own tenant is served there, the other on the platform's host",
    async (key) => {
      const call = { ...OWNED, ...PAGES }[key]!;
      const refused = await on(HOST, call(foreign));
      const body = await refused.text();
      expect(refused.status, body).toBe(404);
      if (refused.headers.get("content-type")?.includes("json"))
        expect(JSON.parse(body)).toMatchObject({ code: "NOT_FOUND" });
      expect(refused.headers.get("location")).toBeNull();
      const served = await on(HOST, call(own));
      expect(served.status, await served.text()).toBeLessThan(400);
      const elsewhere = await onPlatform(call(foreign));
      expect(elsewhere.status, await elsewhere.text()).toBeLessThan(400);
    },
  );
});

describe("every spelling of the host", () => {
  // the same list as above: a public operation classified there is requested here on every spelling
  it.each(Object.keys({ ...OWNED, ...PAGES }))(
    "%s: another agency's tenant is 404 on every spelling of the custom host",
    async (key) => {
      const call = { ...OWNED, ...PAGES }[key]!;
      for (const spelling of SPELLINGS) {
        const refused = await on(spelling, call(foreign));
        expect(refused.status, `${spelling}: ${(await refused.text()).slice(0, 200)}`).toBe(404);
      }
    },
  );

  it("each spelling is the host: its own tenant is served there, with the host's brand on a page", async () => {
    for (const spelling of SPELLINGS) {
      const served = await on(spelling, OWNED["GET /w/{key}/reviews"]!(own));
      expect(served.status, spelling).toBe(200);
      const unknown = await on(spelling, { path: "/l/zzzzzzzzzzzz", init: { headers: { accept: "text/html" } } });
      expect(await unknown.text(), spelling).toContain("Guarded Reviews");
    }
  });
});

describe("what a refused request shows and does", () => {
  it("a browser gets the host's brand on the not-found page, for a foreign and for an unknown review link, widget or alert link", async () => {
    const html = { headers: { accept: "text/html,application/xhtml+xml" } };
    for (const path of [
      `/l/${foreign.slug}`,
      "/l/zzzzzzzzzzzz",
      `/w/${foreign.widgetKey}`,
      `/alerts/unsubscribe/${foreign.alertToken}`,
    ]) {
      const res = await on(HOST, { path, init: html });
      expect(res.status, path).toBe(404);
      expect(res.headers.get("content-type"), path).toContain("text/html");
      const page = await res.text();
      expect(page, path).toContain(`background:${BRAND_COLOUR}`);
      expect(page, path).toContain("Guarded Reviews");
    }
  });

  it("records nothing: no review-link click, no alert unsubscribe", async () => {
    const link = (await w.as("tenantBAdmin", w.tenantB.id).get("/v1/review-links")).body.data.find(
      (l: { slug: string }) => l.slug === foreign.slug,
    );
    // opens by earlier tests (on the platform's host) are older than this
    const since = new Date().toISOString();
    for (let i = 0; i < 3; i++) expect((await on(HOST, { path: `/l/${foreign.slug}` })).status).toBe(404);
    expect((await on(HOST, { path: `/alerts/unsubscribe/${foreign.alertToken}`, init: json("POST") })).status).toBe(
      404,
    );
    // one open on the platform's host, counted: the refused ones would have been flushed with or before it
    expect(
      (await onPlatform({ path: `/l/${foreign.slug}`, init: { headers: { "cf-connecting-ip": "203.0.113.77" } } }))
        .status,
    ).toBe(302);
    const rows = await eventually(async () => {
      const r = await shardOf(w.tenantB)
        .select()
        .from(reviewLinkClicks)
        .where(and(eq(reviewLinkClicks.reviewLinkId, link.id), gte(reviewLinkClicks.clickedAt, since)));
      return r.length ? r : null;
    });
    expect(rows).toHaveLength(1);
  });
});

describe("by construction", () => {
  // a stand-in for a public route added later that forgets to hand its owner to the guard
  const app = new Hono<AppEnv>();
  app.use(
    "*",
    async (c, next) => {
      c.set("control", controlDb(c.env));
      await next();
    },
    publicHost,
  );
  app.get("/new-public/:id", (c) => c.json({ secret: "another tenant's data" }));
  app.get("/guarded/:tenantId", async (c) => {
    await c.var.hostGuard(c.req.param("tenantId"));
    return c.json({ served: true });
  });
  app.get("/docs/example", (c) => c.json({ neutral: true }));
  app.onError(onError);
  const get = (host: string, path: string, accept = "application/json") =>
    app.request(`https://${host}${path}`, { headers: { accept } }, env);

  it("a public route that never names its owner answers the host's 404 on a custom host, and works on the platform's", async () => {
    const res = await get(HOST, "/new-public/1");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "Not found", code: "NOT_FOUND" });
    const page = await get(HOST, "/new-public/1", "text/html");
    expect(await page.text()).toContain(`background:${BRAND_COLOUR}`);
    expect((await get(PLATFORM, "/new-public/1")).status).toBe(200);
    expect((await get("pending.guarded-agency.test", "/new-public/1")).status).toBe(200);
    expect((await get(HOST, "/docs/example")).status).toBe(200);
    for (const spelling of SPELLINGS) expect((await get(spelling, "/new-public/1")).status, spelling).toBe(404);
  });

  it("the guard serves the host's own tenants and refuses the others", async () => {
    expect(await (await get(HOST, `/guarded/${w.tenantA.id}`)).json()).toEqual({ served: true });
    expect((await get(HOST, `/guarded/${w.tenantB.id}`)).status).toBe(404);
    expect((await get(HOST, `/guarded/no-such-tenant`)).status).toBe(404);
    expect((await get(PLATFORM, `/guarded/${w.tenantB.id}`)).status).toBe(200);
  });
});

describe("cost", () => {
  it("the hot public paths read nothing from D1 on a custom host once warm", async () => {
    for (const path of [`/l/${own.slug}`, `/w/${own.widgetKey}/reviews`, `/v1/r/${own.token}?redirect=1`]) {
      const req = () => new Request(`https://${HOST}${path}`, { redirect: "manual" });
      await countRoundTrips(req());
      const hot = await countRoundTrips(req());
      expect(hot.status, path).toBeLessThan(400);
      expect(hot.roundTrips, path).toBe(0);
    }
  });
});
