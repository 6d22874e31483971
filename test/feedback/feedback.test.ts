import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import {
  auditEvents,
  domainEvents,
  feedbackSubmissions,
  feedbackViews,
  inboxItems,
  solicitations,
} from "../../src/db/schema";
import { latestEmailTo } from "../helpers/dev-mailbox";
import { request } from "../helpers/http";
import { createWorld, db, type World } from "../helpers/seed";
import { eventually, newContact, newLocation, newSolicitation, submit } from "../inbox/helpers";

let w: World;
let loc: { id: string; brandId: string };
let contact: { id: string };

beforeAll(async () => {
  w = await createWorld();
  loc = await newLocation(w, "manager", {
    name: "Downtown Clinic",
    city: "Springfield",
    googlePlaceId: "ChIJ-place",
    yelpBusinessId: "downtown-clinic-springfield",
  });
  await w
    .as("tenantAdmin")
    .patch(`/v1/brands/${loc.brandId}`, { name: "Smile Dental", logoUrl: "https://cdn.example.test/logo.png" });
  contact = await newContact(w);
});

const sol = () => newSolicitation({ tenantId: w.tenantA.id, locationId: loc.id, contactId: contact.id });
const feedbackOf = (solicitationId: string) =>
  db().select().from(feedbackSubmissions).where(eq(feedbackSubmissions.solicitationId, solicitationId)).get();

describe("GET /v1/f/{token}", () => {
  it("returns the brand, location and public review links without authentication, and counts the view", async () => {
    const s = await sol();
    const res = await request("GET", `/v1/f/${s.token}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      brand: { name: "Smile Dental", logoUrl: "https://cdn.example.test/logo.png" },
      location: { id: loc.id, name: "Downtown Clinic", city: "Springfield" },
      survey: null,
      reviewLinks: [{ site: "google", url: "https://search.google.com/local/writereview?placeid=ChIJ-place" }],
      submitUrl: expect.stringContaining(`/v1/f/${s.token}`),
    });
    const view = await eventually(
      () => db().select().from(feedbackViews).where(eq(feedbackViews.solicitationId, s.id)).get(),
      Boolean,
    );
    expect(view).toMatchObject({ tenantId: w.tenantA.id, locationId: loc.id, views: 1 });
  });

  it("is 404 for a forged or tampered token", async () => {
    const s = await sol();
    const [payload, mac] = s.token.split(".");
    // the first character: the last two of a MAC may already be "AA" (1 token in 256)
    expect((await request("GET", `/v1/f/${payload}.${mac![0] === "A" ? "B" : "A"}${mac!.slice(1)}`)).status).toBe(404);
    expect((await request("GET", "/v1/f/not-a-token")).body).toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("POST /v1/f/{token}", () => {
  it("validates the fields: rating 1-5, npsScore 0-10, score by surveyType", async () => {
    const s = await sol();
    for (const [body, path] of [
      [{ rating: 0 }, "rating"],
      [{ rating: 6 }, "rating"],
      [{ npsScore: 11 }, "npsScore"],
      [{ surveyType: "csat", score: 6 }, "score"],
      [{ surveyType: "ces", score: 8 }, "score"],
      [{ surveyType: "ces", score: 0 }, "score"],
      [{ score: 3 }, "surveyType"],
      [{ surveyType: "promoter", score: 3 }, "surveyType"],
      [{}, ""],
    ] as const) {
      const res = await submit(s.token, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
      expect(res.body.details.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
    expect(await feedbackOf(s.id)).toBeUndefined();
    expect((await submit(s.token, { surveyType: "ces", score: 7 })).status).toBe(201);
  });

  it("stores the feedback, creates a feedback inbox item, converts the solicitation and emits feedback.submitted", async () => {
    const s = await sol();
    await request("GET", `/v1/f/${s.token}`);
    const res = await submit(s.token, { rating: 2, text: "The wait was forever and the receptionist was rude." });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ success: true, updated: false, reviewLinks: [{ site: "google" }] });
    const f = (await feedbackOf(s.id))!;
    expect(f).toMatchObject({
      id: res.body.feedbackId,
      contactId: contact.id,
      rating: 2,
      sentiment: "negative",
      type: "feedback",
      callbackRequested: false,
    });
    expect(f.topics).toEqual(expect.arrayContaining(["staff", "wait_time"]));

    const item = await db().select().from(inboxItems).where(eq(inboxItems.feedbackId, f.id)).get();
    expect(item).toMatchObject({
      tenantId: w.tenantA.id,
      type: "feedback",
      status: "new",
      locationId: loc.id,
      rating: 2,
      sentiment: "negative",
      excerpt: f.text,
    });

    const solRow = await db().select().from(solicitations).where(eq(solicitations.id, s.id)).get();
    expect(solRow!.convertedAt).toBe(f.submittedAt);
    const events = (await db().select().from(domainEvents).where(eq(domainEvents.tenantId, w.tenantA.id))).filter(
      (e) => e.data.solicitationId === s.id,
    );
    expect(events.map((e) => e.type).sort()).toEqual(["feedback.submitted", "solicitation.converted"]);
    const audit = await db().select().from(auditEvents).where(eq(auditEvents.resourceId, f.id)).get();
    expect(audit).toMatchObject({ action: "feedback.submitted", actorType: "system", tenantId: w.tenantA.id });
    expect(audit!.metadata).toMatchObject({ job: "public-feedback" });
  });

  it("a second submission within 24 hours updates the first instead of duplicating", async () => {
    const s = await sol();
    const first = await submit(s.token, { rating: 2, text: "Meh." });
    const second = await submit(s.token, { rating: 5, text: "Actually they called me and fixed it, wonderful!" });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ updated: true, feedbackId: first.body.feedbackId });
    const rows = await db().select().from(feedbackSubmissions).where(eq(feedbackSubmissions.solicitationId, s.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ rating: 5, sentiment: "positive" });
    const items = await db().select().from(inboxItems).where(eq(inboxItems.feedbackId, rows[0]!.id));
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      rating: 5,
      sentiment: "positive",
      excerpt: "Actually they called me and fixed it, wonderful!",
    });
    const submitted = (await db().select().from(domainEvents)).filter(
      (e) => e.type === "feedback.submitted" && e.data.solicitationId === s.id,
    );
    expect(submitted).toHaveLength(1);

    // after the window the link is used up
    await db()
      .update(feedbackSubmissions)
      .set({ createdAt: new Date(Date.now() - 25 * 3600_000).toISOString() })
      .where(eq(feedbackSubmissions.id, rows[0]!.id));
    const late = await submit(s.token, { rating: 1 });
    expect(late.status).toBe(409);
    expect((await feedbackOf(s.id))!.rating).toBe(5);
  });

  it("keeps an earlier convertedAt", async () => {
    const s = await sol();
    await db().update(solicitations).set({ convertedAt: "2026-01-02T03:04:05.000Z" }).where(eq(solicitations.id, s.id));
    expect((await submit(s.token, { npsScore: 9 })).status).toBe(201);
    expect((await db().select().from(solicitations).where(eq(solicitations.id, s.id)).get())!.convertedAt).toBe(
      "2026-01-02T03:04:05.000Z",
    );
    expect(await feedbackOf(s.id)).toMatchObject({ npsScore: 9, surveyType: "nps", score: 9 });
  });

  it("a callback request escalates the inbox item and emails the location", async () => {
    const place = await newLocation(w, "manager", { name: "Uptown", email: "uptown@clinic.example.test" });
    const s = await newSolicitation({ tenantId: w.tenantA.id, locationId: place.id, contactId: contact.id });
    const res = await submit(s.token, { rating: 1, text: "Billing problem", callbackRequested: true });
    expect(res.status).toBe(201);
    const item = await db().select().from(inboxItems).where(eq(inboxItems.feedbackId, res.body.feedbackId)).get();
    expect(item).toMatchObject({ escalationReason: "callback requested", escalatedBy: null });
    expect(item!.escalatedAt).toBeTruthy();
    const mail = await latestEmailTo("uptown@clinic.example.test");
    expect(mail).toMatchObject({ tenantId: w.tenantA.id, subject: "Callback requested: Casey Jones at Uptown" });
    expect(mail!.text).toMatch(/Phone: \+1415555\d{4}/);
    expect(mail!.text).toContain('Comment: "Billing problem"');
  });

  it("records how long the customer took from landing to submit", async () => {
    const s = await sol();
    await request("GET", `/v1/f/${s.token}`);
    await eventually(
      () => db().select().from(feedbackViews).where(eq(feedbackViews.solicitationId, s.id)).get(),
      Boolean,
    );
    await submit(s.token, { rating: 4 });
    const f = (await feedbackOf(s.id))!;
    const view = (await db().select().from(feedbackViews).where(eq(feedbackViews.solicitationId, s.id)).get())!;
    expect(f.landedAt).toBe(view.lastViewedAt);
    expect(f.landedAt! <= f.submittedAt).toBe(true);
  });

  it("is 404 for a token whose solicitation does not exist", async () => {
    const { mintLinkToken } = await import("../../src/modules/links/tokens");
    const { env } = await import("cloudflare:workers");
    const token = await mintLinkToken(env.JWT_SECRET!, {
      solicitationId: "gone",
      tenantId: w.tenantA.id,
      locationId: loc.id,
      destination: "feedback",
    });
    expect((await submit(token, { rating: 3 })).status).toBe(404);
  });
});

describe("hosted page /f/{token}", () => {
  it("renders a branded, accessible form that works without JavaScript", async () => {
    const s = await sol();
    const res = await request("GET", `/f/${s.token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.text).toMatch(/^<!doctype html>/);
    expect(res.text).toContain("Smile Dental");
    expect(res.text).toContain('src="https://cdn.example.test/logo.png"');
    expect(res.text).toContain(`<form method="post" action="/f/${s.token}">`);
    expect(res.text).toContain('<span class="sr">2 stars</span>');
    expect(res.text).toContain('<label class="block" for="text">');
    expect(res.text).not.toContain("<script");
  });

  it("gives each link of a location its own form action (the blank form is rendered once per location)", async () => {
    const [a, b] = [await sol(), await sol()];
    const pageA = await request("GET", `/f/${a.token}`);
    const pageB = await request("GET", `/f/${b.token}`);
    expect(pageB.text).toContain(`<form method="post" action="/f/${b.token}">`);
    expect(pageB.text).not.toContain(a.token);
    expect(pageB.text.replace(b.token, "T")).toBe(pageA.text.replace(a.token, "T"));
    expect(pageB.headers.get("content-security-policy")).toBe(pageA.headers.get("content-security-policy"));
  });

  it("posts the form, redirects to the thank-you page with the review links for a low rating too", async () => {
    const s = await sol();
    const post = await request("POST", `/f/${s.token}`, {
      body: new URLSearchParams({ rating: "2", text: "Cold coffee", callbackRequested: "yes" }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(post.status).toBe(303);
    expect(post.headers.get("location")).toBe(`/f/${s.token}/thanks`);
    expect(await feedbackOf(s.id)).toMatchObject({ rating: 2, text: "Cold coffee", callbackRequested: true });
    const thanks = await request("GET", `/f/${s.token}/thanks`);
    expect(thanks.status).toBe(200);
    expect(thanks.text).toContain("Thank you for your feedback!");
    expect(thanks.text).toContain('href="https://search.google.com/local/writereview?placeid=ChIJ-place"');
    // never a Yelp link, though the location has a Yelp page: Yelp forbids asking for reviews
    expect(thanks.text).not.toContain("Yelp");
  });

  it("shows the form again with a message when nothing was picked", async () => {
    const s = await sol();
    const post = await request("POST", `/f/${s.token}`, {
      body: "text=",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(post.status).toBe(400);
    expect(post.text).toContain('role="alert"');
    expect(post.text).toContain("Please pick a rating or write a comment");
  });

  it("answers an unknown token with a friendly HTML 404", async () => {
    const res = await request("GET", "/f/nope.nope");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.text).toContain("find this feedback page");
  });
});

describe("privacy", () => {
  it("exports a contact's feedback and erasure wipes its text but keeps the rating", async () => {
    const person = await newContact(w);
    const s = await newSolicitation({ tenantId: w.tenantA.id, locationId: loc.id, contactId: person.id });
    const sent = await submit(s.token, { rating: 3, text: "My name is Jo and my number is 555-0100" });
    const exported = await w.as("tenantAdmin").get(`/v1/contacts/${person.id}/export`);
    expect(exported.status).toBe(200);
    expect(exported.body.records.feedback).toMatchObject([
      { id: sent.body.feedbackId, rating: 3, text: "My name is Jo and my number is 555-0100" },
    ]);
    expect((await w.as("tenantAdmin").delete(`/v1/contacts/${person.id}`)).status).toBe(200);
    const f = (await feedbackOf(s.id))!;
    expect(f).toMatchObject({ rating: 3, text: null, followUpText: null, surveyResponses: {} });
    expect(f.anonymizedAt).toBeTruthy();
    const item = await db()
      .select()
      .from(inboxItems)
      .where(and(eq(inboxItems.feedbackId, f.id)))
      .get();
    expect(item!.excerpt).toBeNull();
  });
});
