import { z } from "@hono/zod-openapi";
import { groupBy, groupMap } from "../../../lib/collections";
import { defineAgent } from "../define";
import { round } from "../stats";
import { addDays, daysIn, Evidences, RangeInput, rangeOf } from "../types";

export const MAX_REVIEWS = 500;
const EXCERPT = 160;

const input = z
  .object({ locationId: z.string().min(1).max(64).optional(), ...RangeInput })
  .openapi("ReputationInsightInput");

const Excerpt = z.object({ reviewId: z.string(), rating: z.number().nullable(), text: z.string() });

const output = z
  .object({
    reviewsRead: z.number().int(),
    truncated: z
      .boolean()
      .describe(`true when the window holds more than ${MAX_REVIEWS} reviews (the newest were read)`),
    locations: z.array(
      z.object({
        locationId: z.string(),
        reviews: z.number().int(),
        averageRating: z.number().nullable(),
        ratingTrend: z.object({
          earlierAverage: z.number().nullable().describe("first half of the window"),
          recentAverage: z.number().nullable().describe("second half of the window"),
          change: z.number().nullable(),
          direction: z.enum(["up", "down", "flat", "unknown"]),
        }),
        sentiment: z.object({ positive: z.number().int(), neutral: z.number().int(), negative: z.number().int() }),
        topThemes: z.array(
          z.object({
            topic: z.string(),
            mentions: z.number().int(),
            averageRating: z.number().nullable(),
            negativeShare: z.number(),
            excerpts: z.array(Excerpt),
            evidence: Evidences,
          }),
        ),
        emergingIssues: z.array(
          z.object({
            topic: z.string(),
            earlierNegative: z.number().int(),
            recentNegative: z.number().int(),
            excerpts: z.array(Excerpt),
            evidence: Evidences,
          }),
        ),
        evidence: Evidences,
      }),
    ),
  })
  .openapi("ReputationInsightOutput");

interface ReviewDto {
  id: string;
  locationId: string;
  rating: number | null;
  text: string | null;
  sentiment: "positive" | "neutral" | "negative" | null;
  topics: string[];
  publishedAt: string | null;
  createdAt: string;
}

const avg = (xs: number[]) => (xs.length ? round(xs.reduce((a, b) => a + b, 0) / xs.length, 2) : null);
const excerpt = (r: ReviewDto) => ({
  reviewId: r.id,
  rating: r.rating,
  text: (r.text ?? "").length > EXCERPT ? `${r.text!.slice(0, EXCERPT - 1)}…` : (r.text ?? ""),
});
const isNegative = (r: ReviewDto) => r.sentiment === "negative" || (r.rating !== null && r.rating <= 2);

export const reputationInsight = defineAgent({
  name: "agent.reputation-insight",
  title: "Reputation insight",
  description:
    "Rating and sentiment trends, top themes and emerging issues (more negative reviews in the window's second half " +
    "than its first) per location, each with quoted review excerpts as evidence.",
  input,
  output,
  systemPrompt:
    "You analyse customer reviews per location: rating trend (first vs second half of the window), sentiment, the most " +
    "mentioned topics and emerging issues (topics with growing negative mentions). Quote review excerpts with their ids.",
  tools: ["reviews.search"],
  range: (i) => rangeOf(i),
  async rules(run, i) {
    const range = run.range!;
    const { data } = await run.tool<{ data: ReviewDto[] }>("reviews.search", {
      dateFrom: range.from,
      dateTo: range.to,
      locationId: i.locationId,
      limit: MAX_REVIEWS,
    });
    const mid = addDays(range.from, Math.floor(daysIn(range) / 2));
    const recent = (r: ReviewDto) => (r.publishedAt ?? r.createdAt).slice(0, 10) >= mid;
    const byLocation = groupBy(data, (r) => r.locationId);
    const locations = [...byLocation.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([locationId, rs]) => {
        const rated = (xs: ReviewDto[]) => xs.flatMap((r) => (r.rating === null ? [] : [r.rating]));
        const earlierAverage = avg(rated(rs.filter((r) => !recent(r))));
        const recentAverage = avg(rated(rs.filter(recent)));
        const change =
          earlierAverage !== null && recentAverage !== null ? round(recentAverage - earlierAverage, 2) : null;
        const topics = groupMap(
          rs.flatMap((r) => r.topics.map((t) => ({ t, r }))),
          (x) => x.t,
          (x) => x.r,
        );
        const topThemes = [...topics.entries()]
          .sort(([a, x], [b, y]) => y.length - x.length || a.localeCompare(b))
          .slice(0, 5)
          .map(([topic, trs]) => {
            const neg = trs.filter(isNegative);
            return {
              topic,
              mentions: trs.length,
              averageRating: avg(rated(trs)),
              negativeShare: round(neg.length / trs.length, 3),
              excerpts: trs
                .filter((r) => r.text)
                .slice(0, 2)
                .map(excerpt),
              evidence: trs.slice(0, 5).map((r) => ({
                source: "reviews.search",
                id: r.id,
                label: `review mentioning ${topic}, rating`,
                value: r.rating,
              })),
            };
          });
        const emergingIssues = [...topics.entries()]
          .map(([topic, trs]) => ({
            topic,
            earlier: trs.filter((r) => isNegative(r) && !recent(r)),
            later: trs.filter((r) => isNegative(r) && recent(r)),
          }))
          .filter((x) => x.later.length >= 2 && x.later.length > x.earlier.length)
          .sort(
            (a, b) =>
              b.later.length - b.earlier.length - (a.later.length - a.earlier.length) || a.topic.localeCompare(b.topic),
          )
          .slice(0, 5)
          .map((x) => ({
            topic: x.topic,
            earlierNegative: x.earlier.length,
            recentNegative: x.later.length,
            excerpts: x.later
              .filter((r) => r.text)
              .slice(0, 3)
              .map(excerpt),
            evidence: x.later.slice(0, 5).map((r) => ({
              source: "reviews.search",
              id: r.id,
              label: `recent negative review mentioning ${x.topic}`,
              value: r.rating,
            })),
          }));
        return {
          locationId,
          reviews: rs.length,
          averageRating: avg(rated(rs)),
          ratingTrend: {
            earlierAverage,
            recentAverage,
            change,
            direction:
              change === null
                ? ("unknown" as const)
                : change > 0.1
                  ? ("up" as const)
                  : change < -0.1
                    ? ("down" as const)
                    : ("flat" as const),
          },
          sentiment: {
            positive: rs.filter((r) => r.sentiment === "positive").length,
            neutral: rs.filter((r) => r.sentiment === "neutral").length,
            negative: rs.filter((r) => r.sentiment === "negative").length,
          },
          topThemes,
          emergingIssues,
          evidence: [{ source: "reviews.search", id: locationId, label: "reviews in window", value: rs.length }],
        };
      });
    return { reviewsRead: data.length, truncated: data.length >= MAX_REVIEWS, locations };
  },
});
