import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { contacts, linkClicks, locations } from "../../src/db/schema";
import worker from "../../src/index";
import type { ClickMessage } from "../../src/modules/links/clicks";
import { mintLinkToken, mintUnsubscribeToken } from "../../src/modules/links/tokens";
import { request } from "../helpers/http";
import { createWorld, db, type World } from "../helpers/seed";
import {
  clicksOf,
  createContact,
  createLocation,
  eventsOf,
  eventually,
  SECRET,
  seedSolicitation,
  solicitationRow,
} from "./helpers";

let w: World;
let contactId: string;

beforeAll(async () => {
  w = await createWorld();
  contactId = (await createContact(w.as("manager"))).id;
});

const PROFILE = {
  googlePlaceId: "ChIJ-place/1",
  yelpUrl: "https://www.yelp.com/biz/acme-dental-springfield",
  facebookUrl: "https://www.facebook.com/acmedental/reviews",
};

async function linkFor(
  destination: string,
  fields: Record<string, unknown> = PROFILE,
  extra: { destinationUrl?: string } = {},
) {
  const loc = await createLocation(w.as("manager"), fields);
  return {
    loc,
    ...(await seedSolicitation({ tenantId: w.tenantA.id, locationId: loc.id, contactId, destination, ...extra })),
  };
}

const redirectOf = async (token: string, headers: Record<string, string> = {}) => {
  const res = await request("GET", `/v1/r/${token}?redirect=1`, { headers });
  expect(res.status).toBe(302);
  return res.headers.get("location");
};

describe("GET /v1/r/{token}", () => {
  it("redirects to each destination kind", async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["google", PROFILE, "https://search.google.com/local/writereview?placeid=ChIJ-place%2F1"],
      ["facebook", PROFILE, PROFILE.facebookUrl],
      ["facebook", { facebookPageId: "12345" }, "https://www.facebook.com/12345/reviews"],
      ["auto", PROFILE, "https://search.google.com/local/writereview?placeid=ChIJ-place%2F1"],
    ];
    for (const [kind, fields, expected] of cases) {
      const { token } = await linkFor(kind, fields);
      expect(await redirectOf(token), kind).toBe(expected);
    }
    // Yelp forbids asking for reviews: a link minted for it (before the rule) opens the feedback page
    for (const kind of ["survey", "feedback", "kiosk", "yelp"]) {
      const { token } = await linkFor(kind);
      expect(await redirectOf(token), kind).toBe(`${env.PUBLIC_BASE_URL}/f/${token}`);
    }
  });

  it("falls back to the feedback page when the location lacks the site, and auto without a place id", async () => {
    for (const kind of ["google", "yelp", "facebook", "auto"]) {
      const { token } = await linkFor(kind, { googleMyBusinessUrl: kind === "google" ? null : "https://g.page/acme" });
      expect(await redirectOf(token), kind).toBe(`${env.PUBLIC_BASE_URL}/f/${token}`);
    }
  });

  it("uses the brand's review profile when the location has none", async () => {
    const brand = await w
      .as("tenantAdmin")
      .post("/v1/brands", { name: "Brand With Place", slug: `bwp-${Date.now()}`, googlePlaceId: "BRAND-PLACE" });
    expect(brand.status).toBe(201);
    const { token } = await linkFor("google", { brandId: brand.body.id });
    expect(await redirectOf(token)).toBe("https://search.google.com/local/writereview?placeid=BRAND-PLACE");
  });

  it("sends a custom link to the solicitation's destinationUrl", async () => {
    const { token } = await linkFor("custom", PROFILE, { destinationUrl: "https://example.test/thanks?x=1" });
    expect(await redirectOf(token)).toBe("https://example.test/thanks?x=1");
  });

  it("answers JSON destination data without redirect=1, and records no click", async () => {
    const { token, id, loc } = await linkFor("facebook");
    const res = await request("GET", `/v1/r/${token}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      solicitationId: id,
      destination: "facebook",
      resolvedDestination: "facebook",
      url: PROFILE.facebookUrl,
      location: { id: loc.id, name: loc.name },
      brand: { name: `${w.tenantA.name} brand`, logoUrl: null },
      // never Yelp, though the location has a Yelp page
      reviewLinks: {
        google: "https://search.google.com/local/writereview?placeid=ChIJ-place%2F1",
        facebook: PROFILE.facebookUrl,
      },
      feedbackUrl: `${env.PUBLIC_BASE_URL}/f/${token}`,
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(await clicksOf(id)).toHaveLength(0);
  });

  it("404s a forged, tampered or foreign-purpose token without authentication", async () => {
    const { token } = await linkFor("google");
    const forged = await mintLinkToken("another-secret-0123456789-0123456789", {
      solicitationId: "s",
      tenantId: w.tenantA.id,
      locationId: "l",
      destination: "google",
    });
    const unsub = await mintUnsubscribeToken(SECRET, {
      tenantId: w.tenantA.id,
      contactId,
      channel: "email",
      solicitationId: "s",
    });
    for (const bad of [forged, `${token.split(".")[0]}.AAAAAAAAAAAAAAAAAAAAAA`, unsub, "nope"]) {
      const res = await request("GET", `/v1/r/${bad}?redirect=1`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: "NOT_FOUND" });
      expect((await request("PATCH", `/v1/r/${bad}/click`)).status).toBe(404);
    }
  });

  it("answers a link whose location was deactivated or belongs to another tenant with 404 (HTML for browsers)", async () => {
    const loc = await createLocation(w.as("manager"), PROFILE);
    await db().update(locations).set({ isActive: false }).where(eq(locations.id, loc.id));
    const { token, id } = await seedSolicitation({
      tenantId: w.tenantA.id,
      locationId: loc.id,
      contactId,
      destination: "google",
    });
    const json = await request("GET", `/v1/r/${token}?redirect=1`);
    expect(json.status).toBe(404);
    expect(json.body).toMatchObject({
      code: "NOT_FOUND",
      error: "This link is no longer active",
      details: { reason: "location_inactive" },
    });
    const page = await request("GET", `/v1/r/${token}?redirect=1`, {
      headers: { accept: "text/html,application/xhtml+xml" },
    });
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.text).toContain("This link is no longer active");

    // a token naming tenant B with tenant A's location: the location is not found in B
    const cross = await mintLinkToken(SECRET, {
      solicitationId: id,
      tenantId: w.tenantB.id,
      locationId: loc.id,
      destination: "google",
    });
    expect((await request("GET", `/v1/r/${cross}`)).body).toMatchObject({ details: { reason: "location_deleted" } });
    await new Promise((r) => setTimeout(r, 300));
    expect(await clicksOf(id)).toHaveLength(0);
  });
});

describe("clicks", () => {
  it("records one click per visitor and window; the first sets clickedAt and emits one solicitation.clicked", async () => {
    const { token, id } = await linkFor("google");
    const visitor = (n: number) => ({
      "cf-connecting-ip": `192.0.2.${n}`,
      "user-agent": "Mozilla/5.0 (iPhone) Safari/604.1",
    });
    await redirectOf(token, visitor(1));
    const first = await eventually(async () => (await solicitationRow(id))?.clickedAt);
    const patch = await request("PATCH", `/v1/r/${token}/click`, { headers: visitor(2) });
    expect(patch.status).toBe(200);
    expect(patch.body).toEqual({ success: true });
    // the first visitor again, a HEAD and a prefetch: redirected, not counted (links/clicks.ts)
    await redirectOf(token, visitor(1));
    expect((await request("HEAD", `/v1/r/${token}?redirect=1`, { headers: visitor(4) })).status).toBe(302);
    await redirectOf(token, { ...visitor(5), "sec-purpose": "prefetch" });
    await redirectOf(token, visitor(3));
    const clicks = await eventually(async () => {
      const rows = await clicksOf(id);
      return rows.length >= 3 && rows;
    });
    expect(clicks.map((c) => c.source).sort()).toEqual(["api", "redirect", "redirect"]);
    expect(clicks[0]!.clickedAt).toBe(first);
    expect((await solicitationRow(id))!.clickedAt).toBe(first);
    const events = (await eventsOf("solicitation.clicked")).filter((e) => e.data.solicitationId === id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      id: `evt_clicked_${id}`,
      tenantId: w.tenantA.id,
      data: { solicitationId: id, contactId, clickedAt: first },
    });
  });

  it("the consumer is idempotent under redelivery and drops clicks of unknown solicitations", async () => {
    const { id } = await linkFor("google");
    const at = "2026-03-01T12:00:00.000Z";
    const bodies: ClickMessage[] = [
      { id: crypto.randomUUID(), tenantId: w.tenantA.id, solicitationId: id, source: "redirect", at },
      {
        id: crypto.randomUUID(),
        tenantId: w.tenantA.id,
        solicitationId: id,
        source: "redirect",
        at: "2026-03-01T12:00:05.000Z",
      },
      {
        id: crypto.randomUUID(),
        tenantId: w.tenantA.id,
        solicitationId: "no-such-solicitation",
        source: "redirect",
        at,
      },
      // another tenant's claim on this solicitation is not recorded
      { id: crypto.randomUUID(), tenantId: w.tenantB.id, solicitationId: id, source: "redirect", at },
    ];
    const deliver = async (attempts: number) => {
      const batch = createMessageBatch("clicks", [
        { id: "m0", timestamp: new Date(), attempts, body: { clicks: bodies.slice(0, 2) } },
        { id: "m1", timestamp: new Date(), attempts, body: { clicks: bodies.slice(2) } },
        { id: "bad", timestamp: new Date(), attempts, body: { nope: true } },
      ]);
      const ctx = createExecutionContext();
      await worker.queue(batch, env, ctx);
      return getQueueResult(batch, ctx);
    };
    const first = await deliver(1);
    expect(first.explicitAcks.sort()).toEqual(["bad", "m0", "m1"]);
    const second = await deliver(2);
    expect(second.retryMessages).toEqual([]);
    const rows = await db().select().from(linkClicks).where(eq(linkClicks.solicitationId, id));
    expect(rows.map((r) => r.id).sort()).toEqual([bodies[0]!.id, bodies[1]!.id].sort());
    expect((await solicitationRow(id))!.clickedAt).toBe(at);
    expect((await eventsOf("solicitation.clicked")).filter((e) => e.data.solicitationId === id)).toHaveLength(1);
  });
});

// Issue #44, item 8: a BLOCKED solicitation was never sent, so nobody was asked; an open of its link
// (a preview, a guessed or leaked token) is no customer's click. Every door that records one is tried.
describe("a solicitation that was never sent", () => {
  it("records no click from any door (redirect, QR scan, PATCH click, a click on the queue), while the link still answers", async () => {
    const loc = await createLocation(w.as("manager"), PROFILE);
    const contact = await createContact(w.as("manager"));
    const blocked = await seedSolicitation({
      tenantId: w.tenantA.id,
      locationId: loc.id,
      contactId: contact.id,
      destination: "google",
      status: "BLOCKED",
      sentAt: null,
    });
    const activityBefore = (await db().select().from(contacts).where(eq(contacts.id, contact.id)).get())!
      .lastActivityAt;
    const visitor = (n: number) => ({
      "cf-connecting-ip": `198.51.100.${n}`,
      "user-agent": "Mozilla/5.0 Firefox/140.0",
    });
    expect(await redirectOf(blocked.token, visitor(1))).toContain("search.google.com");
    const scan = await request("GET", `/v1/r/${blocked.token}?redirect=1&src=qr`, { headers: visitor(2) });
    expect(scan.status).toBe(302);
    expect((await request("PATCH", `/v1/r/${blocked.token}/click`, { headers: visitor(3) })).status).toBe(200);
    const batch = createMessageBatch("clicks", [
      {
        id: "blocked-click",
        timestamp: new Date(),
        attempts: 1,
        body: {
          clicks: [
            {
              id: crypto.randomUUID(),
              tenantId: w.tenantA.id,
              solicitationId: blocked.id,
              source: "redirect",
              at: new Date().toISOString(),
            },
          ],
        },
      },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["blocked-click"]);
    // a sent solicitation opened afterwards is recorded: the blocked opens were flushed with it or before
    const sent = await linkFor("google");
    await redirectOf(sent.token, visitor(4));
    await eventually(async () => (await clicksOf(sent.id)).length > 0);
    expect(await clicksOf(blocked.id)).toEqual([]);
    expect((await solicitationRow(blocked.id))!.clickedAt).toBeNull();
    expect((await eventsOf("solicitation.clicked")).filter((e) => e.data.solicitationId === blocked.id)).toEqual([]);
    expect((await db().select().from(contacts).where(eq(contacts.id, contact.id)).get())!.lastActivityAt).toBe(
      activityBefore,
    );
  });
});
