import { beforeAll, describe, expect, it } from "vitest";
import {
  NEUTRAL,
  SCORE_WEIGHTS,
  type ScoreInputs,
  scoreComponents,
  scoreOf,
} from "../../src/modules/reputation/formula";
import { createWorld, type World } from "../helpers/seed";
import { newLocation } from "../reviews/helpers";

// src/modules/reputation: the score formula on its own (docs/analytics.md). The score computed from
// seeded reviews, its routes and the daily sweep are in test/analytics/reviews-score.test.ts.
const none: ScoreInputs = {
  rated365: 0,
  ratingSum365: 0,
  sites365: 0,
  reviews30: 0,
  positive90: 0,
  neutral90: 0,
  negative90: 0,
  arrived90: 0,
  responded90: 0,
  slaMet90: 0,
  slaMissed90: 0,
};

describe("score formula", () => {
  it("weighs five components that add up to the whole", () => {
    expect(Object.values(SCORE_WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
  });

  it("with no data: the rating prior (3.5 stars), neutral sentiment and response health, nothing else", () => {
    const c = scoreComponents(none);
    expect(c).toEqual({ rating: 62.5, velocity: 0, sentiment: NEUTRAL, responseHealth: NEUTRAL, platformDiversity: 0 });
    // 0.35 * 62.5 + 0.2 * 50 + 0.15 * 50 = 39.375
    expect(scoreOf(c)).toBe(39);
  });

  it("caps each component at 100: more reviews or sites than the targets earn nothing extra", () => {
    const c = scoreComponents({
      ...none,
      rated365: 100,
      ratingSum365: 500,
      sites365: 5,
      reviews30: 16,
      positive90: 10,
      arrived90: 10,
      responded90: 10,
    });
    // rating: (500 + 17.5) / 105 = 4.93 stars -> 98.2
    expect(c).toEqual({ rating: 98.2, velocity: 100, sentiment: 100, responseHealth: 100, platformDiversity: 100 });
    expect(scoreOf(c)).toBe(99);
  });

  it("response health mixes the response rate (60 %) with the SLA kept (40 %) once SLAs decided", () => {
    expect(scoreComponents({ ...none, arrived90: 4, responded90: 2 }).responseHealth).toBe(50);
    const withSla = scoreComponents({ ...none, arrived90: 4, responded90: 2, slaMet90: 1, slaMissed90: 3 });
    expect(withSla.responseHealth).toBe(40);
  });

  it("sentiment runs from 0 (all negative) to 100 (all positive) around the neutral 50", () => {
    expect(scoreComponents({ ...none, negative90: 3 }).sentiment).toBe(0);
    expect(scoreComponents({ ...none, positive90: 1, neutral90: 1, negative90: 1 }).sentiment).toBe(50);
    expect(scoreComponents({ ...none, positive90: 2, negative90: 1 }).sentiment).toBe(66.7);
  });
});

describe("GET /v1/locations/{id}/score/history input", () => {
  let w: World;
  let loc: { id: string };
  beforeAll(async () => {
    w = await createWorld();
    loc = await newLocation(w);
  });

  it("refuses a reversed or too long range and a limit over 366 with VALIDATION_ERROR", async () => {
    const reversed = "dateFrom=2026-05-02&dateTo=2026-05-01";
    const tooLong = "dateFrom=2023-01-01&dateTo=2026-01-01";
    const bad = [reversed, tooLong, "limit=367", "dateFrom=yesterday"];
    for (const q of bad) {
      const res = await w.as("viewer").get(`/v1/locations/${loc.id}/score/history?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.code, q).toBe("VALIDATION_ERROR");
    }
    const full = "dateFrom=2026-01-01&dateTo=2026-12-31&limit=366";
    const ok = await w.as("viewer").get(`/v1/locations/${loc.id}/score/history?${full}`);
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual([]);
  });
});
