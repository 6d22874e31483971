import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { inboxItems, reviews } from "../../src/db/schema";
import { dayOf } from "../../src/modules/analytics/dates";
import { expectInvalidQueries } from "../helpers/checks";
import { countRoundTrips } from "../helpers/d1-counter";
import { client } from "../helpers/http";
import { createWorld, db, seedTenant, type World } from "../helpers/seed";
import { newContact, noQuietHours, solicit, waitForStatus } from "../solicitations/helpers";

// GET /agency/usage: per owned tenant, on any shard, its locations, contacts, requests sent this month,
// reviews, rating, response rate and overdue items (issue #46, the console's agency page).

let w: World;
/** agency A's second tenant, on shard 1 */
let onShard1: Awaited<ReturnType<typeof seedTenant>>;
/** agency A's paused tenant, with nothing in it */
let paused: Awaited<ReturnType<typeof seedTenant>>;

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();
const rebuild = async (as: ReturnType<typeof client>) => {
  const today = dayOf(new Date());
  const res = await as.post("/v1/analytics/rebuild", { dateFrom: dayOf(daysAgo(60)), dateTo: today });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

beforeAll(async () => {
  w = await createWorld();
  onShard1 = await seedTenant({ agencyId: w.agencyA.id, shard: 1, name: "Shard One Dental" });
  paused = await seedTenant({ agencyId: w.agencyA.id, isActive: false, name: "Paused Dental" });

  // tenant A (shard 0): two locations, one closed; three contacts; two requests sent; three reviews
  await noQuietHours(w);
  const loc = (await w.as("manager").post("/v1/locations", { name: "Main", timezone: "UTC" })).body.id;
  const closed = (await w.as("manager").post("/v1/locations", { name: "Old" })).body.id;
  expect((await w.as("manager").patch(`/v1/locations/${closed}`, { isActive: false })).status).toBe(200);
  const people = [await newContact(w), await newContact(w), await newContact(w)];
  for (const p of people.slice(0, 2)) {
    const s = await solicit(w, { locationId: loc, contactId: p.id, channel: "email" });
    await waitForStatus(s.body.id, "SENT");
  }
  const ingest = async (body: Record<string, unknown>, as: ReturnType<typeof client> = w.as("tenantUser")) => {
    const res = await as.post("/v1/reviews/ingest", body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  };
  // happened 40 days ago (published then), arrived here now: counted all time, not this month
  await ingest({ locationId: loc, siteType: "google", rating: 5, externalReviewId: "g-5", publishedAt: daysAgo(40) });
  const answered = await ingest({ locationId: loc, siteType: "first_party", rating: 4, text: "Good" });
  const angry = await ingest({ locationId: loc, siteType: "google", rating: 1, externalReviewId: "g-1" });
  const draft = (await w.as("tenantUser").post(`/v1/reviews/${answered}/responses`, { text: "Thanks!" })).body;
  await w.as("tenantUser").post(`/v1/responses/${draft.id}/submit`);
  await w.as("manager").post(`/v1/responses/${draft.id}/approve`);
  expect((await w.as("manager").post(`/v1/responses/${draft.id}/publish`)).status).toBe(200);
  // one star, unanswered for two days under a one-day SLA: overdue
  expect(
    (
      await w.as("tenantAdmin").post("/v1/settings/sla-rules", {
        name: "One star within a day",
        filter: { rating: [1] },
        responseWindowHours: 24,
        escalateAfterHours: 96,
      })
    ).status,
  ).toBe(201);
  await db()
    .update(reviews)
    .set({ createdAt: daysAgo(2) })
    .where(eq(reviews.id, angry));
  await db()
    .update(inboxItems)
    .set({ createdAt: daysAgo(2) })
    .where(eq(inboxItems.reviewId, angry));
  await rebuild(w.as("tenantAdmin"));

  // the shard-1 tenant, worked on by the agency's admin: one location, one contact, one review
  const c = client(w.users.agencyAdmin.token, onShard1.id);
  const cLoc = (await c.post("/v1/locations", { name: "Uptown" })).body.id;
  expect((await c.post("/v1/contacts", { email: "one@shard.test" })).status).toBe(201);
  await ingest({ locationId: cLoc, siteType: "yelp", rating: 3, externalReviewId: "y-3" }, c);
  await rebuild(c);
});

type Row = { tenant: { id: string }; [k: string]: unknown };
const usage = async (query = "", as: ReturnType<typeof client> = w.as("agencyAdmin")) => {
  const res = await as.get(`/agency/usage${query ? `?${query}` : ""}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
};
const byTenant = (rows: Row[]) => Object.fromEntries(rows.map((r) => [r.tenant.id, r]));

describe("GET /agency/usage", () => {
  it("every owned tenant on every shard, newest first, with its usage and health", async () => {
    const res = await usage();
    expect(res.body.data.map((r: Row) => r.tenant.id)).toEqual([paused.id, onShard1.id, w.tenantA.id]);
    expect(res.body.total).toBe(3);
    const now = new Date();
    expect(res.body.month).toBe(now.toISOString().slice(0, 7));
    expect(res.body.responseRange).toEqual({ dateFrom: dayOf(daysAgo(29)), dateTo: dayOf(now) });
    const rows = byTenant(res.body.data);
    expect(rows[w.tenantA.id]).toEqual({
      tenant: { id: w.tenantA.id, name: w.tenantA.name, slug: w.tenantA.slug, plan: "starter", isActive: true },
      locations: 1,
      contacts: 3,
      messagesSentThisMonth: 2,
      reviews: 3,
      reviewsThisMonth: 2,
      averageRating: 3.33,
      responseRate: 0.3333,
      overdueInboxItems: 1,
    });
    expect(rows[onShard1.id]).toMatchObject({
      tenant: { name: "Shard One Dental", isActive: true },
      locations: 1,
      contacts: 1,
      messagesSentThisMonth: 0,
      reviews: 1,
      reviewsThisMonth: 1,
      averageRating: 3,
      responseRate: 0,
      overdueInboxItems: 0,
    });
    expect(rows[paused.id]).toMatchObject({
      tenant: { isActive: false },
      locations: 0,
      contacts: 0,
      reviews: 0,
      averageRating: null,
      responseRate: null,
      overdueInboxItems: 0,
    });
  });

  it("overdue items are the inbox's pastSla items", async () => {
    const inbox = await w.as("viewer").get("/v1/inbox?pastSla=true");
    const row = byTenant((await usage(`tenantId=${w.tenantA.id}`)).body.data)[w.tenantA.id]!;
    expect(row.overdueInboxItems).toBe(inbox.body.total);
  });

  it("pages by cursor; tenantId narrows to one owned tenant; isActive to paused or active ones", async () => {
    const first = await usage("limit=2");
    expect(first.body.data.map((r: Row) => r.tenant.id)).toEqual([paused.id, onShard1.id]);
    const second = await usage(`limit=2&cursor=${first.body.pageInfo.endCursor}`);
    expect(second.body.data.map((r: Row) => r.tenant.id)).toEqual([w.tenantA.id]);
    expect(second.body.pageInfo.hasNextPage).toBe(false);
    expect((await usage(`tenantId=${onShard1.id}`)).body.data.map((r: Row) => r.tenant.id)).toEqual([onShard1.id]);
    expect((await usage("isActive=false")).body.data.map((r: Row) => r.tenant.id)).toEqual([paused.id]);
    expect((await usage("isActive=true")).body.total).toBe(2);
  });

  it("another agency's tenant is 404; another agency's admin sees only its own; tenant roles 403", async () => {
    const foreign = await w.as("agencyAdmin").get(`/agency/usage?tenantId=${w.tenantB.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe("NOT_FOUND");
    const other = await usage("", w.as("otherAgencyAdmin"));
    expect(other.body.data.map((r: Row) => r.tenant.id)).toEqual([w.tenantB.id]);
    expect((await usage(`tenantId=${onShard1.id}`, w.as("platformAdmin"))).body.data).toHaveLength(1);
    for (const as of ["tenantAdmin", "manager", "viewer"] as const) {
      const res = await w.as(as).get("/agency/usage");
      expect(res.status, as).toBe(403);
      expect(res.body.code).toBe("FORBIDDEN");
    }
  });

  it("bad input is 400 VALIDATION_ERROR", async () => {
    await expectInvalidQueries(
      (query) => w.as("agencyAdmin").get(`/agency/usage?${query}`),
      [
        ["limit=0", "limit"],
        ["isActive=maybe", "isActive"],
        ["cursor=nope", "cursor"],
      ],
    );
  });

  it("costs one round trip to the directory and one per shard touched, whatever the number of tenants", async () => {
    const get = (path: string) =>
      countRoundTrips(
        new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${w.users.agencyAdmin.token}` } }),
      );
    await get("/agency/usage"); // warms the principal cache
    const all = await get("/agency/usage");
    expect((all.body as { total: number }).total).toBe(3);
    expect(all.roundTrips).toBe(1 + 2);
    const one = await get(`/agency/usage?tenantId=${onShard1.id}`);
    expect(one.roundTrips).toBe(2 + 1); // the ownership check, the page, shard 1
  });
});
