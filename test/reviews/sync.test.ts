import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { domainEvents, inboxItems, integrations, reviews } from "../../src/db/schema";
import worker from "../../src/index";
import { consumeReviewSync, PAGES_PER_MESSAGE, type ReviewSyncJob } from "../../src/modules/reviews/sync";
import { FacebookClient } from "../../src/providers/review-sites/facebook";
import { TrustpilotClient } from "../../src/providers/review-sites/trustpilot";
import { YelpClient } from "../../src/providers/review-sites/yelp";
import { createWorld, db, type World } from "../helpers/seed";
import { type Call, jsonResponse, newLocation, standIn } from "./helpers";

let w: World;
let loc: { id: string };
let googleId: string;

beforeAll(async () => {
  w = await createWorld();
  loc = await newLocation(w);
  const res = await w.as("tenantAdmin").post("/v1/integrations", {
    connectorType: "google",
    name: "Google",
    locationId: loc.id,
    config: { accountId: "111", locationId: "222" },
    credentials: { accessToken: "g-token" },
  });
  googleId = res.body.id;
});

const STARTED = "2026-04-01T00:00:00.000Z";

// The quota limiter (ProviderQuota) is shared by every test of the file: each test runs ten virtual
// minutes after the last, so a 429 back-off in one test does not hold the next.
let virtualNow = Date.now();
const now = () => virtualNow;
beforeEach(() => {
  virtualNow += 10 * 60_000;
});
const job = (o: Partial<ReviewSyncJob> = {}): ReviewSyncJob => ({
  tenantId: w.tenantA.id,
  integrationId: googleId,
  cursor: null,
  since: null,
  startedAt: STARTED,
  ...o,
});

/** Runs the consumer on one message; `delays` are the delaySeconds it asked for on retry. */
async function run(body: ReviewSyncJob, fetchFn: typeof fetch, attempts = 1) {
  const batch = createMessageBatch("review-sync", [
    { id: `m-${Math.random()}`, timestamp: new Date(), attempts, body },
  ]);
  const retry = vi.spyOn(batch.messages[0]!, "retry");
  const ctx = createExecutionContext();
  await consumeReviewSync(batch, env, db(), { fetch: fetchFn, now });
  const delays = retry.mock.calls.map(([o]) => o?.delaySeconds);
  return { ...(await getQueueResult(batch, ctx)), delays };
}

/** Two pages of Google reviews.list, as the API serves them (newest change first). */
let page1 = [
  {
    name: "accounts/111/locations/222/reviews/r1",
    reviewId: "r1",
    reviewer: { displayName: "Sam Park" },
    starRating: "FIVE",
    comment: "Friendly staff and spotless rooms",
    createTime: "2026-03-30T10:00:00Z",
    updateTime: "2026-03-30T10:00:00Z",
  },
  {
    name: "accounts/111/locations/222/reviews/r2",
    reviewId: "r2",
    reviewer: { displayName: "Anonymous", isAnonymous: true },
    starRating: "ONE",
    comment: "Rude and slow",
    createTime: "2026-03-20T10:00:00Z",
    updateTime: "2026-03-20T10:00:00Z",
  },
];
const page2 = [
  {
    name: "accounts/111/locations/222/reviews/r3",
    reviewId: "r3",
    reviewer: { displayName: "Lee" },
    starRating: "THREE",
    createTime: "2026-03-01T10:00:00Z",
    updateTime: "2026-03-01T10:00:00Z",
    reviewReply: { comment: "Thanks Lee!", updateTime: "2026-03-02T10:00:00Z" },
  },
];

const google = () =>
  standIn((call: Call) => {
    const token = call.url.searchParams.get("pageToken");
    if (!token)
      return jsonResponse({ reviews: page1, averageRating: 3, totalReviewCount: 3, nextPageToken: "page-2-token" });
    if (token === "page-2-token") return jsonResponse({ reviews: page2, averageRating: 3, totalReviewCount: 3 });
    return jsonResponse({ error: { code: 400, message: "bad token" } }, 400);
  });

const stored = () =>
  db()
    .select()
    .from(reviews)
    .where(and(eq(reviews.tenantId, w.tenantA.id), eq(reviews.siteType, "google")));
const integration = async () => (await db().select().from(integrations).where(eq(integrations.id, googleId)))[0]!;

describe("Google Business Profile sync", () => {
  it("pages through two pages of reviews.list and stores every review", async () => {
    const site = google();
    const result = await run(job(), site.fetch);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toEqual([]);

    expect(site.calls).toHaveLength(2);
    const [first, second] = site.calls;
    expect(`${first!.url.origin}${first!.url.pathname}`).toBe(
      "https://mybusiness.googleapis.com/v4/accounts/111/locations/222/reviews",
    );
    expect(Object.fromEntries(first!.url.searchParams)).toEqual({ pageSize: "50", orderBy: "updateTime desc" });
    expect(first!.headers.get("authorization")).toBe("Bearer g-token");
    expect(second!.url.searchParams.get("pageToken")).toBe("page-2-token");

    const rows = await stored();
    const byId = Object.fromEntries(rows.map((r) => [r.externalReviewId, r]));
    expect(rows).toHaveLength(3);
    expect(byId.r1).toMatchObject({
      rating: 5,
      ratingMax: 5,
      authorName: "Sam Park",
      sentiment: "positive",
      topics: ["staff", "cleanliness"],
      locationId: loc.id,
      status: "new",
      publishedAt: "2026-03-30T10:00:00.000Z",
    });
    expect(byId.r2).toMatchObject({ rating: 1, authorName: null, sentiment: "negative", status: "new" });
    // the owner already replied on Google: nothing left to answer
    expect(byId.r3).toMatchObject({ rating: 3, text: null, status: "responded", externalReplyText: "Thanks Lee!" });
    const items = await db().select().from(inboxItems).where(eq(inboxItems.tenantId, w.tenantA.id));
    expect(items).toHaveLength(3);
    expect(await integration()).toMatchObject({ lastSyncAt: STARTED, lastSyncStatus: "ok", lastSyncError: null });
  });

  it("re-syncing the same pages is idempotent; a changed review becomes review.updated", async () => {
    const eventsBefore = await db().select().from(domainEvents).where(eq(domainEvents.tenantId, w.tenantA.id));
    await run(job(), google().fetch);
    expect(await stored()).toHaveLength(3);
    expect(await db().select().from(inboxItems).where(eq(inboxItems.tenantId, w.tenantA.id))).toHaveLength(3);
    expect(await db().select().from(domainEvents).where(eq(domainEvents.tenantId, w.tenantA.id))).toHaveLength(
      eventsBefore.length,
    );

    page1 = [
      {
        ...page1[0]!,
        starRating: "TWO",
        comment: "Friendly staff but the room was dirty",
        updateTime: "2026-03-31T09:00:00Z",
      },
      page1[1]!,
    ];
    await run(job(), google().fetch);
    const r1 = (await stored()).find((r) => r.externalReviewId === "r1")!;
    expect(r1).toMatchObject({ rating: 2, sentiment: "negative" });
    const after = await db().select().from(domainEvents).where(eq(domainEvents.tenantId, w.tenantA.id));
    expect(
      after
        .filter((e) => e.data.reviewId === r1.id)
        .map((e) => e.type)
        .sort(),
    ).toEqual(["review.created", "review.negative", "review.updated"]);
  });

  it("syncs incrementally: stops paging at reviews older than the last sync", async () => {
    const site = google();
    await run(job({ since: "2026-03-25T00:00:00.000Z" }), site.fetch);
    expect(site.calls).toHaveLength(1);
  });

  it("on 429 retries the message after Retry-After and records rate_limited", async () => {
    const limited = standIn(() =>
      jsonResponse({ error: { code: 429, message: "Quota exceeded", status: "RESOURCE_EXHAUSTED" } }, 429, {
        "retry-after": "120",
      }),
    );
    const result = await run(job(), limited.fetch);
    expect(result.retryMessages).toHaveLength(1);
    expect(result.delays).toEqual([120]);
    expect(result.explicitAcks).toEqual([]);
    expect(await integration()).toMatchObject({
      lastSyncStatus: "rate_limited",
      lastSyncError: expect.stringContaining("Quota exceeded"),
      lastSyncAt: STARTED,
    });
  });

  it("on 429 without Retry-After backs off exponentially", async () => {
    const limited = standIn(() => new Response("slow down", { status: 429 }));
    const result = await run(job(), limited.fetch, 3);
    const delay = result.delays[0]!;
    expect(delay).toBeGreaterThanOrEqual(20);
    expect(delay).toBeLessThanOrEqual(40);
  });

  it("a refused token is recorded and the message is not retried", async () => {
    const denied = standIn(() =>
      jsonResponse(
        { error: { code: 401, message: "Request had invalid authentication credentials.", status: "UNAUTHENTICATED" } },
        401,
      ),
    );
    const result = await run(job(), denied.fetch);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toEqual([]);
    expect(await integration()).toMatchObject({
      lastSyncStatus: "error",
      lastSyncError: expect.stringContaining("invalid authentication credentials"),
    });
  });

  it("hands the rest to a follow-up message after PAGES_PER_MESSAGE pages", async () => {
    const endless = standIn((call) => {
      const n = Number(call.url.searchParams.get("pageToken") ?? "0");
      return jsonResponse({
        reviews: [
          {
            reviewId: `e${n}`,
            starRating: "FOUR",
            createTime: "2026-03-29T00:00:00Z",
            updateTime: "2026-03-29T00:00:00Z",
          },
        ],
        nextPageToken: String(n + 1),
      });
    });
    const sent: unknown[] = [];
    const queue = { send: async (body: unknown) => void sent.push(body) } as unknown as Queue;
    const batch = createMessageBatch("review-sync", [{ id: "long", timestamp: new Date(), attempts: 1, body: job() }]);
    await consumeReviewSync(batch, { ...env, REVIEW_SYNC: queue }, db(), { fetch: endless.fetch, now });
    expect(endless.calls).toHaveLength(PAGES_PER_MESSAGE);
    expect(sent).toEqual([{ ...job(), cursor: String(PAGES_PER_MESSAGE) }]);
  });

  it("acks messages for integrations that are gone or disabled, through the worker's queue handler", async () => {
    const batch = createMessageBatch("review-sync", [
      { id: "gone", timestamp: new Date(), attempts: 1, body: job({ integrationId: "no-such-integration" }) },
      { id: "foreign", timestamp: new Date(), attempts: 1, body: job({ tenantId: w.tenantB.id }) },
      { id: "junk", timestamp: new Date(), attempts: 1, body: { hello: "world" } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["foreign", "gone", "junk"]);
  });
});

describe("other review-site clients against their documented shapes", () => {
  it("Trustpilot: pages from 1 with perPage 100 while links has next-page", async () => {
    const site = standIn((call) => {
      const page = Number(call.url.searchParams.get("page"));
      return jsonResponse({
        reviews: [
          {
            id: `tp-${page}`,
            stars: page === 1 ? 5 : 2,
            title: "Title",
            text: "Body",
            language: "en-US",
            createdAt: "2026-03-01T00:00:00Z",
            consumer: { id: "c1", displayName: "Kim" },
          },
        ],
        links:
          page === 1
            ? [{ href: "...", method: "GET", rel: "next-page" }]
            : [{ href: "...", method: "GET", rel: "prev-page" }],
      });
    });
    const client = new TrustpilotClient({ businessUnitId: "bu-9", accessToken: "tp" }, site.fetch);
    const p1 = await client.listReviews(null);
    expect(p1.nextCursor).toBe("2");
    expect(p1.reviews[0]).toMatchObject({
      externalReviewId: "tp-1",
      rating: 5,
      text: "Title\n\nBody",
      authorName: "Kim",
      authorExternalId: "c1",
      language: "en",
    });
    const p2 = await client.listReviews(p1.nextCursor);
    expect(p2.nextCursor).toBeNull();
    expect(`${site.calls[0]!.url.origin}${site.calls[0]!.url.pathname}`).toBe(
      "https://api.trustpilot.com/v1/private/business-units/bu-9/reviews",
    );
    expect(Object.fromEntries(site.calls[1]!.url.searchParams)).toEqual({
      page: "2",
      perPage: "100",
      orderBy: "createdat.desc",
    });
    expect(site.calls[0]!.headers.get("authorization")).toBe("Bearer tp");
  });

  it("Yelp Fusion: up to 3 excerpts, no paging, Bearer API key", async () => {
    const site = standIn(() =>
      jsonResponse({
        reviews: [
          {
            id: "y1",
            url: "https://www.yelp.com/biz/x?hrid=y1",
            text: "Great tacos...",
            rating: 5,
            time_created: "2026-03-05 19:10:00",
            user: { id: "u1", name: "Pat R." },
          },
        ],
        total: 120,
        possible_languages: ["en"],
      }),
    );
    const page = await new YelpClient({ businessId: "biz-1", apiKey: "yk" }, site.fetch).listReviews();
    expect(site.calls[0]!.url.toString()).toBe(
      "https://api.yelp.com/v3/businesses/biz-1/reviews?limit=3&sort_by=newest",
    );
    expect(site.calls[0]!.headers.get("authorization")).toBe("Bearer yk");
    expect(page).toEqual({
      nextCursor: null,
      reviews: [
        expect.objectContaining({
          externalReviewId: "y1",
          rating: 5,
          authorName: "Pat R.",
          publishedAt: "2026-03-05T19:10:00.000Z",
          url: "https://www.yelp.com/biz/x?hrid=y1",
        }),
      ],
    });
    expect(new YelpClient({ businessId: "b", apiKey: "k" }, site.fetch).reply).toBeUndefined();
  });

  it("Facebook page ratings: recommendation without stars, cursor paging", async () => {
    const site = standIn((call) =>
      call.url.searchParams.get("after")
        ? jsonResponse({ data: [], paging: { cursors: { before: "b", after: "c2" } } })
        : jsonResponse({
            data: [
              {
                created_time: "2026-03-03T08:00:00+0000",
                recommendation_type: "negative",
                review_text: "Never again",
                reviewer: { id: "42", name: "Jo" },
                open_graph_story: { id: "story-1" },
              },
            ],
            paging: { cursors: { before: "a", after: "c1" }, next: "https://graph.facebook.com/next" },
          }),
    );
    const client = new FacebookClient({ pageId: "page-1", pageAccessToken: "fb" }, site.fetch);
    const p1 = await client.listReviews(null);
    expect(site.calls[0]!.url.pathname).toBe("/v21.0/page-1/ratings");
    expect(site.calls[0]!.headers.get("authorization")).toBe("Bearer fb");
    expect(p1.nextCursor).toBe("c1");
    expect(p1.reviews[0]).toMatchObject({
      externalReviewId: "story-1",
      rating: null,
      recommendation: "negative",
      authorName: "Jo",
      publishedAt: "2026-03-03T08:00:00.000Z",
    });
    expect((await client.listReviews("c1")).nextCursor).toBeNull();
  });
});
