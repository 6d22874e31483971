import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, domainEvents, inboxItems, solicitations } from "../../src/db/schema";
import { createWorld, db, type World } from "../helpers/seed";
import { ingest, newLocation } from "./helpers";

let w: World;
let locA: { id: string };
let locA2: { id: string };
let locB: { id: string };

beforeAll(async () => {
  w = await createWorld();
  locA = await newLocation(w);
  locA2 = await newLocation(w);
  locB = await newLocation(w, "tenantBAdmin");
  // the solicitation the first review answers (a review naming an unknown solicitation is a 400)
  const now = new Date().toISOString();
  await db().insert(solicitations).values({
    id: "sol_123",
    tenantId: w.tenantA.id,
    locationId: locA.id,
    contactId: "c_1",
    channel: "email",
    status: "SENT",
    shortLinkToken: "sol_123-token",
    idempotencyKey: "k",
    createdAt: now,
    updatedAt: now,
  });
});

describe("POST /v1/reviews/ingest", () => {
  it("stores a review with sentiment, topics and language computed, an inbox item, and review.created + review.negative", async () => {
    const res = await w.as("tenantUser").post("/v1/reviews/ingest", {
      locationId: locA.id,
      siteType: "google",
      externalReviewId: "g-1",
      rating: 1,
      ratingMax: 5,
      text: "The staff were rude and we waited forever for a table, terrible experience",
      authorName: "Ann Lee",
      authorExternalId: "user-9",
      publishedAt: "2026-03-01T10:00:00Z",
      solicitationId: "sol_123",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      tenantId: w.tenantA.id,
      locationId: locA.id,
      siteType: "google",
      externalReviewId: "g-1",
      rating: 1,
      ratingMax: 5,
      authorName: "Ann Lee",
      authorExternalId: "user-9",
      language: "en",
      sentiment: "negative",
      status: "new",
      topics: ["staff", "wait_time"],
      isFirstParty: false,
      isPublic: true,
      publishedAt: "2026-03-01T10:00:00.000Z",
      solicitationId: "sol_123",
    });
    expect(res.body.sentimentScore).toBeLessThan(-0.5);

    const items = await db().select().from(inboxItems).where(eq(inboxItems.reviewId, res.body.id));
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      tenantId: w.tenantA.id,
      type: "review",
      status: "new",
      locationId: locA.id,
      escalatedAt: null,
    });
    const events = await db().select().from(domainEvents).where(eq(domainEvents.tenantId, w.tenantA.id));
    const mine = events
      .filter((e) => e.data.reviewId === res.body.id)
      .map((e) => e.type)
      .sort();
    expect(mine).toEqual(["review.created", "review.negative", "solicitation.converted"]);
    const audit = await db().select().from(auditEvents).where(eq(auditEvents.resourceId, res.body.id));
    expect(audit).toEqual([
      expect.objectContaining({ action: "review.created", resourceType: "review", actorId: w.users.tenantUser.id }),
    ]);
  });

  it("re-ingesting the same siteType + externalReviewId updates instead of duplicating (200, review.updated)", async () => {
    const first = await ingest(w, {
      locationId: locA.id,
      siteType: "yelp",
      externalReviewId: "y-1",
      rating: 2,
      text: "Slow service",
    });
    const again = await w.as("tenantUser").post("/v1/reviews/ingest", {
      locationId: locA.id,
      siteType: "yelp",
      externalReviewId: "y-1",
      rating: 5,
      text: "They fixed everything, wonderful team",
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.id, rating: 5, sentiment: "positive", topics: ["staff"] });
    const list = await w.as("viewer").get(`/v1/reviews?siteType=yelp`);
    expect(list.body.data.filter((r: { externalReviewId: string }) => r.externalReviewId === "y-1")).toHaveLength(1);
    expect(await db().select().from(inboxItems).where(eq(inboxItems.reviewId, first.id))).toHaveLength(1);
    const events = (await db().select().from(domainEvents))
      .filter((e) => e.data.reviewId === first.id)
      .map((e) => e.type);
    expect(events.sort()).toEqual(["review.created", "review.negative", "review.updated"]);
    // the same content a third time changes nothing
    const same = await w.as("tenantUser").post("/v1/reviews/ingest", {
      locationId: locA.id,
      siteType: "yelp",
      externalReviewId: "y-1",
      rating: 5,
      text: "They fixed everything, wonderful team",
    });
    expect(same.status).toBe(200);
    expect(same.body.updatedAt).toBe(again.body.updatedAt);
  });

  it("keeps supplied topics and language; first_party defaults isFirstParty", async () => {
    const r = await ingest(w, {
      locationId: locA.id,
      siteType: "first_party",
      rating: 4,
      text: "Muy buen servicio",
      language: "es",
      topics: [" Service ", "service", "Price"],
    });
    expect(r).toMatchObject({
      siteType: "first_party",
      isFirstParty: true,
      language: "es",
      topics: ["service", "price"],
      sentiment: "positive",
      externalReviewId: null,
    });
  });

  it("validates the body (400 with issues)", async () => {
    const res = await w
      .as("tenantUser")
      .post("/v1/reviews/ingest", { locationId: locA.id, siteType: "Google Maps", rating: 6 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(["rating", "siteType"]);
  });

  it("refuses another tenant's location as a 400", async () => {
    const res = await w
      .as("tenantUser")
      .post("/v1/reviews/ingest", { locationId: locB.id, siteType: "google", rating: 5 });
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([{ path: "locationId", message: "Unknown location" }]);
  });

  it("lets a viewer read but not ingest (403)", async () => {
    const res = await w.as("viewer").post("/v1/reviews/ingest", { locationId: locA.id, siteType: "google", rating: 5 });
    expect(res.status).toBe(403);
  });
});

describe("GET /v1/reviews", () => {
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    const seed = async (key: string, body: Record<string, unknown>) => {
      ids[key] = (await ingest(w, body)).id;
    };
    await seed("g5", {
      locationId: locA2.id,
      siteType: "google",
      externalReviewId: "f-g5",
      rating: 5,
      text: "Wonderful",
      publishedAt: "2026-01-10T12:00:00Z",
    });
    await seed("g2", {
      locationId: locA2.id,
      siteType: "google",
      externalReviewId: "f-g2",
      rating: 2,
      text: "Bad and rude",
      publishedAt: "2026-01-20T12:00:00Z",
    });
    await seed("y3", {
      locationId: locA2.id,
      siteType: "tripadvisor",
      externalReviewId: "f-y3",
      rating: 3,
      text: "The bill came",
      publishedAt: "2026-02-05T12:00:00Z",
    });
    await seed("y4", {
      locationId: locA2.id,
      siteType: "tripadvisor",
      externalReviewId: "f-y4",
      rating: 4,
      text: "Nice",
      publishedAt: "2026-02-15T23:59:00Z",
    });
  });

  const get = async (qs: string) => {
    const res = await w.as("viewer").get(`/v1/reviews?locationId=${locA2.id}&${qs}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body.data as { id: string }[]).map((r) => r.id);
  };

  it("lists newest first by publishedAt and filters by location", async () => {
    expect(await get("")).toEqual([ids.y4, ids.y3, ids.g2, ids.g5]);
    const other = await w.as("viewer").get(`/v1/reviews?locationId=${locA.id}`);
    expect(other.body.data.map((r: { id: string }) => r.id)).not.toContain(ids.g5);
  });

  it("filters by each filter alone", async () => {
    expect(await get("siteType=google")).toEqual([ids.g2, ids.g5]);
    expect(await get("sentiment=negative")).toEqual([ids.g2]);
    expect(await get("ratingMin=4")).toEqual([ids.y4, ids.g5]);
    expect(await get("ratingMax=2")).toEqual([ids.g2]);
    expect(await get("dateFrom=2026-02-01")).toEqual([ids.y4, ids.y3]);
    expect(await get("dateTo=2026-02-15")).toEqual([ids.y4, ids.y3, ids.g2, ids.g5]);
    expect(await get("dateTo=2026-02-14")).toEqual([ids.y3, ids.g2, ids.g5]);
  });

  it("combines filters", async () => {
    expect(await get("siteType=tripadvisor&ratingMin=3&ratingMax=3")).toEqual([ids.y3]);
    expect(await get("siteType=google&sentiment=positive&dateFrom=2026-01-01&dateTo=2026-01-31")).toEqual([ids.g5]);
    expect(await get("siteType=google&dateFrom=2026-02-01")).toEqual([]);
  });

  it("pages with a cursor and reports the total", async () => {
    const first = await w.as("viewer").get(`/v1/reviews?locationId=${locA2.id}&limit=3`);
    expect(first.body.total).toBe(4);
    expect(first.body.pageInfo.hasNextPage).toBe(true);
    const next = await w
      .as("viewer")
      .get(`/v1/reviews?locationId=${locA2.id}&limit=3&cursor=${first.body.pageInfo.endCursor}`);
    expect(next.body.data.map((r: { id: string }) => r.id)).toEqual([ids.g5]);
  });

  it("rejects bad filters with 400", async () => {
    const res = await w.as("viewer").get(`/v1/reviews?ratingMin=4&ratingMax=2&sentiment=angry&dateFrom=yesterday`);
    expect(res.status).toBe(400);
    expect(res.body.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(["dateFrom", "sentiment"]);
    const order = await w.as("viewer").get(`/v1/reviews?ratingMin=4&ratingMax=2`);
    expect(order.body.details.issues[0].path).toBe("ratingMin");
  });

  it("never shows another tenant's reviews", async () => {
    await ingest(w, { locationId: locB.id, siteType: "google", externalReviewId: "f-g5", rating: 1 }, "tenantBAdmin");
    const res = await w.as("tenantBAdmin").get("/v1/reviews");
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0].tenantId).toBe(w.tenantB.id);
    // the same external id in tenant B did not touch tenant A's review
    expect((await w.as("viewer").get(`/v1/reviews/${ids.g5}`)).body.rating).toBe(5);
  });
});

describe("GET /v1/reviews/{id}", () => {
  it("returns the review, and 404 for another tenant's id", async () => {
    const r = await ingest(w, { locationId: locA.id, siteType: "google", rating: 5, text: "Lovely" });
    const got = await w.as("viewer").get(`/v1/reviews/${r.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(r);
    const foreign = await w.as("tenantBAdmin").get(`/v1/reviews/${r.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe("NOT_FOUND");
  });
});

describe("inbox item per review", () => {
  it("is scoped to the review's tenant", async () => {
    const r = await ingest(w, { locationId: locB.id, siteType: "google", rating: 4 }, "tenantBAdmin");
    const items = await db()
      .select()
      .from(inboxItems)
      .where(and(eq(inboxItems.reviewId, r.id), eq(inboxItems.tenantId, w.tenantB.id)));
    expect(items).toHaveLength(1);
  });
});
