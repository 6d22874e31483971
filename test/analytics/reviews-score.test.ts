import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, reputationScores } from "../../src/db/schema";
import { systemContext } from "../../src/lib/system-context";
import { dayOf } from "../../src/modules/analytics/dates";
import { reviewSummary } from "../../src/modules/analytics/skills";
import { scoreSweep } from "../../src/modules/reputation/background";
import { computeScore, latestScore } from "../../src/modules/reputation/service";
import { createWorld, db, type World } from "../helpers/seed";
import { deliver, envelope, newLocation, seedPublishedResponse, seedReview } from "./helpers";

let w: World;
let l1: { id: string; brandId: string };
let l2: { id: string };
const today = dayOf(new Date());

beforeAll(async () => {
  w = await createWorld();
  l1 = await newLocation(w);
  l2 = await newLocation(w);
  const sla = await w.as("tenantAdmin").post("/v1/settings/sla-rules", {
    name: "Answer in a day",
    filter: {},
    responseWindowHours: 24,
    escalateAfterHours: 48,
  });
  expect(sla.status, JSON.stringify(sla.body)).toBe(201);
  const t = w.tenantA.id;
  const seeded = [
    await seedReview(t, {
      locationId: l1.id,
      siteType: "google",
      rating: 5,
      sentiment: "positive",
      createdAt: "2026-03-02T10:00:00.000Z",
      status: "responded",
    }),
    await seedReview(t, {
      locationId: l1.id,
      siteType: "google",
      rating: 4,
      sentiment: "positive",
      createdAt: "2026-03-04T10:00:00.000Z",
      status: "responded",
    }),
    // answered on Yelp itself: responded, no response time here
    await seedReview(t, {
      locationId: l1.id,
      siteType: "yelp",
      rating: 1,
      sentiment: "negative",
      createdAt: "2026-03-08T10:00:00.000Z",
      status: "responded",
    }),
    await seedReview(t, {
      locationId: l2.id,
      siteType: "facebook",
      rating: null,
      sentiment: "neutral",
      createdAt: "2026-03-09T10:00:00.000Z",
    }),
    await seedReview(t, {
      locationId: l2.id,
      siteType: "google",
      rating: 3,
      sentiment: "neutral",
      createdAt: "2026-04-01T10:00:00.000Z",
    }),
    // arrived an hour ago: its SLA window is still open
    await seedReview(t, {
      locationId: l2.id,
      siteType: "google",
      rating: 5,
      sentiment: "positive",
      createdAt: new Date(Date.now() - 3600_000).toISOString(),
    }),
  ];
  await seedPublishedResponse(t, seeded[0]!.id!, "2026-03-02T11:00:00.000Z"); // 60 minutes: met
  await seedPublishedResponse(t, seeded[1]!.id!, "2026-03-05T16:00:00.000Z"); // 1,800 minutes: missed
  await deliver([
    ...seeded.map((r) => envelope(t, "review.created", { reviewId: r.id, locationId: r.locationId })),
    envelope(t, "response.published", { reviewId: seeded[0]!.id }),
    envelope(t, "response.published", { reviewId: seeded[1]!.id }),
  ]);
});

const stats = (count: number, averageRating: number | null, d: number[], s: number[]) => ({
  count,
  averageRating,
  distribution: { "1": d[0], "2": d[1], "3": d[2], "4": d[3], "5": d[4] },
  sentiment: { positive: s[0], neutral: s[1], negative: s[2] },
});

describe("GET /v1/analytics/reviews", () => {
  const range = "dateFrom=2026-03-01&dateTo=2026-04-30";

  it("gives totals, by location and by site", async () => {
    const res = await w.as("viewer").get(`/v1/analytics/reviews?${range}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.totals).toEqual(stats(5, 3.25, [1, 0, 1, 1, 1], [2, 2, 1]));
    expect(res.body.bySite).toEqual([
      { siteType: "facebook", ...stats(1, null, [0, 0, 0, 0, 0], [0, 1, 0]) },
      { siteType: "google", ...stats(3, 4, [0, 0, 1, 1, 1], [2, 1, 0]) },
      { siteType: "yelp", ...stats(1, 1, [1, 0, 0, 0, 0], [0, 0, 1]) },
    ]);
    const byLocation = Object.fromEntries(res.body.byLocation.map((x: any) => [x.locationId, x]));
    expect(byLocation[l1.id]).toEqual({ locationId: l1.id, ...stats(3, 3.33, [1, 0, 0, 1, 1], [2, 0, 1]) });
    expect(byLocation[l2.id]).toEqual({ locationId: l2.id, ...stats(2, 3, [0, 0, 1, 0, 0], [0, 2, 0]) });
  });

  it("buckets by day, week (from Monday) and month", async () => {
    const day = await w.as("viewer").get(`/v1/analytics/reviews?${range}`);
    expect(day.body.interval).toBe("day");
    expect(day.body.series.map((x: any) => [x.period, x.count])).toEqual([
      ["2026-03-02", 1],
      ["2026-03-04", 1],
      ["2026-03-08", 1],
      ["2026-03-09", 1],
      ["2026-04-01", 1],
    ]);
    const week = await w.as("viewer").get(`/v1/analytics/reviews?${range}&interval=week`);
    expect(week.body.series).toEqual([
      { period: "2026-03-02", ...stats(3, 3.33, [1, 0, 0, 1, 1], [2, 0, 1]) }, // Mon 2 .. Sun 8 March
      { period: "2026-03-09", ...stats(1, null, [0, 0, 0, 0, 0], [0, 1, 0]) },
      { period: "2026-03-30", ...stats(1, 3, [0, 0, 1, 0, 0], [0, 1, 0]) },
    ]);
    const month = await w.as("viewer").get(`/v1/analytics/reviews?${range}&interval=month`);
    expect(month.body.series).toEqual([
      { period: "2026-03", ...stats(4, 3.33, [1, 0, 0, 1, 1], [2, 1, 1]) },
      { period: "2026-04", ...stats(1, 3, [0, 0, 1, 0, 0], [0, 1, 0]) },
    ]);
    const google = await w
      .as("viewer")
      .get(`/v1/analytics/reviews?${range}&interval=month&siteType=google&locationId=${l1.id}`);
    expect(google.body.totals).toEqual(stats(2, 4.5, [0, 0, 0, 1, 1], [2, 0, 0]));
    expect((await w.as("viewer").get(`/v1/analytics/reviews?${range}&interval=year`)).status).toBe(400);
  });

  it("review.summary (MCP) reads the same rollups", async () => {
    const ctx = await systemContext(env, w.tenantA.id, "test");
    const all = await reviewSummary(ctx, { since: "2026-03-01T00:00:00Z" });
    expect(all).toMatchObject({
      count: 6,
      averageRating: 3.6,
      distribution: { "1": 1, "2": 0, "3": 1, "4": 1, "5": 2 },
    });
    const l1Google = await reviewSummary(ctx, { locationId: l1.id, siteType: "google" });
    expect(l1Google).toMatchObject({
      count: 2,
      averageRating: 4.5,
      bySite: [{ siteType: "google", count: 2, averageRating: 4.5 }],
    });
  });
});

describe("GET /v1/analytics/responses", () => {
  it("gives response rate, median first-response time and SLA compliance", async () => {
    const res = await w.as("viewer").get(`/v1/analytics/responses?dateFrom=2026-03-01&dateTo=${today}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.totals).toEqual({
      reviews: 6,
      responded: 3,
      responseRate: 0.5,
      medianFirstResponseMinutes: 930,
      sla: { covered: 6, met: 2, missed: 3, pending: 1, complianceRate: 0.4 },
    });
    const byLocation = Object.fromEntries(res.body.byLocation.map((x: any) => [x.locationId, x]));
    expect(byLocation[l1.id]).toEqual({
      locationId: l1.id,
      reviews: 3,
      responded: 3,
      responseRate: 1,
      medianFirstResponseMinutes: 930,
      sla: { covered: 3, met: 2, missed: 1, pending: 0, complianceRate: 0.6667 },
    });
    expect(byLocation[l2.id]).toEqual({
      locationId: l2.id,
      reviews: 3,
      responded: 0,
      responseRate: 0,
      medianFirstResponseMinutes: null,
      sla: { covered: 3, met: 0, missed: 2, pending: 1, complianceRate: 0 },
    });
  });

  it("overview combines the three", async () => {
    const res = await w
      .as("viewer")
      .get(`/v1/analytics/overview?dateFrom=2026-03-01&dateTo=${today}&locationId=${l1.id}`);
    expect(res.status).toBe(200);
    expect(res.body.reviews).toMatchObject({ count: 3, averageRating: 3.33 });
    expect(res.body.responses).toMatchObject({ reviews: 3, responded: 3, medianFirstResponseMinutes: 930 });
    expect(res.body.funnel).toMatchObject({ requested: 0, conversionRate: null });
  });
});

describe("reputation score", () => {
  it("computes the documented formula from hand-computed components", async () => {
    const ctx = await systemContext(env, w.tenantA.id, "test");
    const snap = await computeScore(ctx, l1.id, new Date("2026-04-05T12:00:00.000Z"));
    // rating: (10 + 3.5 * 5) / (3 + 5) = 3.4375 stars -> (3.4375 - 1) / 4 = 60.9
    // velocity: 1 review in 30 days of 8 -> 12.5; sentiment: 50 + 50 * (2 - 1) / 3 = 66.7
    // response health: 100 * (0.6 * 3/3 + 0.4 * 2/3) = 86.7; diversity: 2 sites of 3 = 66.7
    expect(snap.components).toEqual({
      rating: 60.9,
      velocity: 12.5,
      sentiment: 66.7,
      responseHealth: 86.7,
      platformDiversity: 66.7,
    });
    // 0.35 * 60.9 + 0.2 * 12.5 + 0.2 * 66.7 + 0.15 * 86.7 + 0.1 * 66.7 = 56.83
    expect(snap.score).toBe(57);
    expect(snap).toMatchObject({
      day: "2026-04-05",
      locationId: l1.id,
      inputs: { rated365: 3, ratingSum365: 10, sites365: 2, reviews30: 1, slaMet90: 2, slaMissed90: 1 },
    });
    expect(await latestScore(ctx, l1.id)).toMatchObject({ day: "2026-04-05", score: 57 });
  });

  it("GET score returns the latest, computing one when there is none; history lists newest first", async () => {
    const first = await w.as("viewer").get(`/v1/locations/${l2.id}/score`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ locationId: l2.id, day: today, weights: { rating: 0.35 } });
    expect(first.body.score).toBeGreaterThanOrEqual(0);
    const latest = await w.as("viewer").get(`/v1/locations/${l1.id}/score`);
    expect(latest.body).toMatchObject({ day: "2026-04-05", score: 57 });

    expect((await w.as("viewer").post(`/v1/locations/${l1.id}/score/recompute`)).status).toBe(403);
    const now = await w.as("manager").post(`/v1/locations/${l1.id}/score/recompute`);
    expect(now.status).toBe(200);
    expect(now.body.day).toBe(today);
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "score.computed"), eq(auditEvents.resourceId, l1.id)));
    expect(audit).toHaveLength(1);

    const history = await w.as("viewer").get(`/v1/locations/${l1.id}/score/history`);
    expect(history.body.data.map((s: any) => s.day)).toEqual([today, "2026-04-05"]);
    const bounded = await w
      .as("viewer")
      .get(`/v1/locations/${l1.id}/score/history?dateTo=2026-12-31&dateFrom=2026-04-01&limit=1`);
    expect(bounded.body.data).toHaveLength(1);
  });

  it("the sweep snapshots every active location without one today, and only once", async () => {
    const l3 = await newLocation(w);
    const day = new Date(`${today}T12:00:00.000Z`);
    expect(await scoreSweep(env, db(), day)).toBeGreaterThanOrEqual(1);
    expect(await scoreSweep(env, db(), day)).toBe(0);
    const rows = await db().select().from(reputationScores).where(eq(reputationScores.locationId, l3.id));
    expect(rows.map((r) => r.day)).toEqual([today]);
  });

  it("another tenant's location is 404", async () => {
    const foreign = await newLocation(w, "tenantBAdmin");
    expect((await w.as("viewer").get(`/v1/locations/${foreign.id}/score`)).status).toBe(404);
    expect((await w.as("viewer").get(`/v1/locations/${foreign.id}/score/history`)).status).toBe(404);
    expect((await w.as("manager").post(`/v1/locations/${foreign.id}/score/recompute`)).status).toBe(404);
  });
});
