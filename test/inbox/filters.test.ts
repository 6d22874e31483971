import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { inboxItems, reviews } from "../../src/db/schema";
import { expectInvalidQueries, keyClient } from "../helpers/checks";
import { createWorld, db, type World } from "../helpers/seed";
import { connect, structured } from "../mcp/helpers";
import { ingest, newContact, newLocation, newSolicitation, submit } from "./helpers";

// GET /v1/inbox (and the MCP tool inbox.list, the same operation) filtered by channel, a star range and
// pastSla, next to status, type, location and assignee; keyset paging unchanged (docs/inbox.md).

let w: World;
/** inbox item ids by name */
const item: Record<string, string> = {};
/** review ids by name */
const review: Record<string, string> = {};

const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();

/** The review's arrival (and its item's) moved back: what a review that came in days ago looks like. */
async function arrivedAt(reviewId: string, at: string) {
  await db().update(reviews).set({ createdAt: at }).where(eq(reviews.id, reviewId));
  await db().update(inboxItems).set({ createdAt: at }).where(eq(inboxItems.reviewId, reviewId));
}

async function itemOf(where: { reviewId?: string; feedbackId?: string }) {
  const row = await db()
    .select()
    .from(inboxItems)
    .where(where.reviewId ? eq(inboxItems.reviewId, where.reviewId) : eq(inboxItems.feedbackId, where.feedbackId!))
    .get();
  return row!.id;
}

beforeAll(async () => {
  w = await createWorld();
  const loc = await newLocation(w);
  // the SLA: 1-2 star reviews answered within a day
  const rule = await w.as("tenantAdmin").post("/v1/settings/sla-rules", {
    name: "Negative within a day",
    filter: { rating: [1, 2] },
    responseWindowHours: 24,
    escalateAfterHours: 72,
  });
  expect(rule.status).toBe(201);
  const reviewsToMake = [
    // name, site, stars, arrived hours ago
    ["angryGoogle", "google", 1, 50],
    ["happyGoogle", "google", 5, 49],
    ["freshYelp", "yelp", 2, 0],
    ["answeredOwn", "first_party", 2, 48],
  ] as const;
  for (const [name, siteType, rating, ago] of reviewsToMake) {
    const r = await ingest(w, {
      locationId: loc.id,
      siteType,
      rating,
      text: `${name}: a review of ${rating} stars.`,
      ...(siteType === "first_party" ? {} : { externalReviewId: `ext-${name}` }),
    });
    review[name] = r.id;
    item[name] = await itemOf({ reviewId: r.id });
    if (ago) await arrivedAt(r.id, hoursAgo(ago));
  }
  // answered: a published response takes it out of the SLA
  const draft = (await w.as("tenantUser").post(`/v1/reviews/${review.answeredOwn}/responses`, { text: "Sorry!" })).body;
  await w.as("tenantUser").post(`/v1/responses/${draft.id}/submit`);
  await w.as("manager").post(`/v1/responses/${draft.id}/approve`);
  expect((await w.as("manager").post(`/v1/responses/${draft.id}/publish`)).status).toBe(200);
  // feedback: from an SMS request and from an email request
  const contact = await newContact(w);
  for (const [name, channel, rating] of [
    ["smsFeedback", "sms", 2],
    ["emailFeedback", "email", 4],
  ] as const) {
    const s = await newSolicitation({ tenantId: w.tenantA.id, locationId: loc.id, contactId: contact.id, channel });
    const f = await submit(s.token, { rating, text: `${name}: feedback.` });
    expect(f.status, JSON.stringify(f.body)).toBe(201);
    item[name] = await itemOf({ feedbackId: f.body.feedbackId });
  }
  // tenant B: a past-due Google 1 star of its own, under its own rule
  const locB = await newLocation(w, "tenantBAdmin");
  await w.as("tenantBAdmin").post("/v1/settings/sla-rules", {
    name: "All within an hour",
    filter: {},
    responseWindowHours: 1,
    escalateAfterHours: 2,
  });
  const b = await ingest(
    w,
    { locationId: locB.id, siteType: "google", rating: 1, externalReviewId: "b-1" },
    "tenantBAdmin",
  );
  await arrivedAt(b.id, hoursAgo(30));
  item.tenantB = await itemOf({ reviewId: b.id });
});

const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((i) => i.id);
const list = async (query: string, as: Parameters<World["as"]>[0] = "viewer") => {
  const res = await w.as(as).get(`/v1/inbox?${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
};

describe("GET /v1/inbox filters", () => {
  it("channel: the review's site, or the channel of the request a feedback answered; shown on each item", async () => {
    const google = await list("channel=google");
    expect(ids(google)).toEqual([item.happyGoogle, item.angryGoogle]);
    expect(google.body.total).toBe(2);
    expect(google.body.data.map((i: { channel: string }) => i.channel)).toEqual(["google", "google"]);
    const sms = await list("channel=sms");
    expect(ids(sms)).toEqual([item.smsFeedback]);
    expect(sms.body.data[0]).toMatchObject({ type: "feedback", channel: "sms", rating: 2 });
    expect(ids(await list("channel=whatsapp"))).toEqual([]);
  });

  it("ratingMin and ratingMax are inclusive; equal bounds are one exact rating; unrated items never match", async () => {
    expect(new Set(ids(await list("ratingMin=2&ratingMax=2")))).toEqual(
      new Set([item.freshYelp, item.answeredOwn, item.smsFeedback]),
    );
    expect(new Set(ids(await list("ratingMax=2")))).toEqual(
      new Set([item.angryGoogle, item.freshYelp, item.answeredOwn, item.smsFeedback]),
    );
    expect(new Set(ids(await list("ratingMin=4")))).toEqual(new Set([item.happyGoogle, item.emailFeedback]));
    const page = await list("ratingMin=1.5&ratingMax=4.5");
    expect(page.body.total).toBe(4);
  });

  it("pastSla=true: the reviews still unanswered after their rule's window, the reviews GET /v1/responses/overdue lists", async () => {
    const past = await list("pastSla=true");
    expect(ids(past)).toEqual([item.angryGoogle]);
    expect(past.body.total).toBe(1);
    const overdue = await w.as("viewer").get("/v1/responses/overdue");
    expect(overdue.body.map((r: { id: string }) => r.id)).toEqual([review.angryGoogle]);
    // false: every other item, feedback included
    const rest = await list("pastSla=false");
    expect(new Set(ids(rest))).toEqual(
      new Set([item.happyGoogle, item.freshYelp, item.answeredOwn, item.smsFeedback, item.emailFeedback]),
    );
    expect(rest.body.total).toBe(5);
  });

  it("filters combine with each other and with status, type and location", async () => {
    expect(ids(await list("channel=google&pastSla=true&status=new&type=review"))).toEqual([item.angryGoogle]);
    expect(ids(await list("channel=yelp&pastSla=true"))).toEqual([]);
    expect(ids(await list("type=feedback&ratingMax=3"))).toEqual([item.smsFeedback]);
  });

  it("keyset pages walk a filtered list, newest first, without repeats", async () => {
    const seen: string[] = [];
    let cursor = "";
    for (let i = 0; i < 10; i++) {
      const page = await list(`ratingMax=2&limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.body.total).toBe(4);
      seen.push(...ids(page));
      if (!page.body.pageInfo.hasNextPage) break;
      cursor = page.body.pageInfo.endCursor;
    }
    const all = ids(await list("ratingMax=2"));
    expect(seen).toEqual(all);
    expect(seen).toHaveLength(4);
  });

  it("bad filters are 400 VALIDATION_ERROR naming the field", async () => {
    await expectInvalidQueries(
      (query) => w.as("viewer").get(`/v1/inbox?${query}`),
      [
        ["channel=fax", "channel"],
        ["ratingMin=0", "ratingMin"],
        ["ratingMax=6", "ratingMax"],
        ["ratingMin=4&ratingMax=2", "ratingMin"],
        ["ratingMin=many", "ratingMin"],
        ["pastSla=yes", "pastSla"],
      ],
    );
  });

  it("another tenant's items never appear; tenant B sees only its own past-due item", async () => {
    expect(ids(await list("pastSla=true&channel=google"))).not.toContain(item.tenantB);
    const b = await w.as("tenantBAdmin").get("/v1/inbox?pastSla=true");
    expect(ids(b)).toEqual([item.tenantB]);
  });

  it("every role of the tenant reads the filtered list alike; another agency's admin is 403", async () => {
    for (const as of ["viewer", "tenantUser", "manager", "tenantAdmin", "agencyAdmin", "platformAdmin"] as const) {
      expect(ids(await list("channel=google", as)), as).toEqual([item.happyGoogle, item.angryGoogle]);
    }
    const other = await w.as("otherAgencyAdmin").get("/v1/inbox?channel=google");
    expect(other.status).toBe(403);
    expect(other.body.code).toBe("FORBIDDEN");
  });

  it("an API key sees the kinds of item its scopes cover under the same filters", async () => {
    const key = (scopes: string[]) => keyClient(w, scopes);
    const reviewsOnly = await key(["read:reviews"]);
    expect(ids(await reviewsOnly.get("/v1/inbox?ratingMax=2"))).not.toContain(item.smsFeedback);
    expect(ids(await reviewsOnly.get("/v1/inbox?pastSla=true"))).toEqual([item.angryGoogle]);
    const feedbackOnly = await key(["read:feedback"]);
    expect(ids(await feedbackOnly.get("/v1/inbox?channel=sms"))).toEqual([item.smsFeedback]);
    expect(ids(await feedbackOnly.get("/v1/inbox?pastSla=true"))).toEqual([]);
    const none = await key(["read:contacts"]);
    expect((await none.get("/v1/inbox?channel=google")).status).toBe(403);
  });
});

describe("inbox.list over MCP", () => {
  it("takes the same filters as JSON values and answers what REST answers", async () => {
    const res = await w
      .as("tenantAdmin")
      .post("/v1/api-keys", { name: "mcp inbox", scopes: ["read:reviews", "read:feedback"] });
    const { client: mcp } = await connect({ token: res.body.key });
    const call = async (args: Record<string, unknown>) =>
      structured<{ data: { id: string }[]; total: number }>(
        await mcp.callTool({ name: "inbox.list", arguments: args }),
      );
    expect((await call({ channel: "google", ratingMax: 2, pastSla: true })).data.map((i) => i.id)).toEqual([
      item.angryGoogle,
    ]);
    expect((await call({ ratingMin: 4 })).total).toBe(2);
    expect((await call({ pastSla: false, channel: "sms" })).data.map((i) => i.id)).toEqual([item.smsFeedback]);
    const bad = await mcp.callTool({ name: "inbox.list", arguments: { ratingMin: 4, ratingMax: 2 } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toMatch(/ratingMin must not exceed ratingMax/);
  });
});
