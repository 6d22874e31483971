import { z } from "@hono/zod-openapi";
import { defineAgent } from "../define";
import { round } from "../stats";
import { type Evidence, Evidences, RangeInput, rangeOf } from "../types";
import { MIN_SENDS } from "./campaign-strategist";

const input = z
  .object({
    locationId: z.string().min(1).max(64).optional(),
    limit: z.number().int().min(1).max(50).default(10),
    ...RangeInput,
  })
  .openapi("OptimizationInput");

const output = z
  .object({
    actions: z.array(
      z.object({
        rank: z.number().int(),
        kind: z.enum(["recommendation", "reply_overdue", "response_rate", "channel_shift"]),
        title: z.string(),
        rationale: z.string(),
        expectedImpact: z.object({ metric: z.string(), estimate: z.number(), unit: z.string() }),
        score: z.number().describe("0..100, the ranking key (docs/ai.md gives the formula per kind)"),
        recommendationId: z.string().nullable(),
        evidence: Evidences,
      }),
    ),
  })
  .openapi("OptimizationOutput");

type Action = Omit<z.infer<typeof output>["actions"][number], "rank">;
const WEIGHT = { high: 3, medium: 2, low: 1 } as const;

export const optimization = defineAgent({
  name: "agent.optimization",
  title: "Optimization",
  description:
    "Ranked actions to improve reputation results (pending recommendations, replies past SLA, a low response rate, " +
    "the best-converting channel), each with its computed impact and the evidence.",
  input,
  output,
  systemPrompt:
    "You rank improvement actions for a reputation team from pending recommendations, the request funnel by channel, reply " +
    "SLA data and response rates. Give each action an expected impact computed from the figures, and rank by impact.",
  tools: ["recommendation.list", "analytics.funnel", "analytics.responses", "sla.overdue"],
  range: (i) => rangeOf(i),
  async rules(run, i) {
    const range = run.range!;
    const scope = { dateFrom: range.from, dateTo: range.to, locationId: i.locationId };
    const actions: Action[] = [];

    const recs = await run.tool<{
      data: {
        id: string;
        title: string;
        description: string;
        priority: keyof typeof WEIGHT;
        confidence: number;
        scopeType: string;
        scopeId: string;
      }[];
    }>("recommendation.list", {
      status: "pending",
      limit: 50,
      ...(i.locationId ? { scope: `location:${i.locationId}` } : {}),
    });
    for (const r of recs.data) {
      actions.push({
        kind: "recommendation",
        title: r.title,
        rationale: r.description,
        expectedImpact: {
          metric: "priority x confidence",
          estimate: round(WEIGHT[r.priority] * r.confidence, 3),
          unit: "score (max 3)",
        },
        score: round((WEIGHT[r.priority] / 3) * r.confidence * 100, 1),
        recommendationId: r.id,
        evidence: [
          { source: "recommendation.list", id: r.id, label: "priority", value: r.priority },
          { source: "recommendation.list", id: r.id, label: "confidence", value: r.confidence },
        ],
      });
    }

    // the answer of GET /v1/responses/overdue (one operation): the reviews, most overdue first
    const overdue = await run.tool<{ id: string; locationId: string; rating: number | null; sla: { dueAt: string } }[]>(
      "sla.overdue",
      { limit: 200 },
    );
    const late = overdue.filter((r) => !i.locationId || r.locationId === i.locationId);
    if (late.length) {
      actions.push({
        kind: "reply_overdue",
        title: `Reply to ${late.length} review${late.length === 1 ? "" : "s"} past the SLA`,
        rationale: `The oldest was due ${late[0]!.sla.dueAt}. Unanswered reviews count against response health in the reputation score.`,
        expectedImpact: { metric: "reviews answered", estimate: late.length, unit: "reviews" },
        score: Math.min(100, 50 + late.length * 5),
        recommendationId: null,
        evidence: late
          .slice(0, 10)
          .map((r) => ({ source: "sla.overdue", id: r.id, label: "overdue since", value: r.sla.dueAt })),
      });
    }

    const responses = await run.tool<{ totals: { reviews: number; responded: number; responseRate: number | null } }>(
      "analytics.responses",
      scope,
    );
    const t = responses.totals;
    if (t.reviews >= 10 && t.responseRate !== null && t.responseRate < 0.8) {
      const missing = t.reviews - t.responded;
      actions.push({
        kind: "response_rate",
        title: `Raise the response rate from ${round(t.responseRate * 100, 1)}%`,
        rationale: `${t.responded} of ${t.reviews} reviews in ${range.from}..${range.to} have a reply; replying to the other ${missing} brings it to 100%.`,
        expectedImpact: { metric: "response rate", estimate: round(1 - t.responseRate, 4), unit: "rate points" },
        score: round(20 + 60 * (1 - t.responseRate), 1),
        recommendationId: null,
        evidence: [
          { source: "analytics.responses", id: null, label: "reviews", value: t.reviews },
          { source: "analytics.responses", id: null, label: "responded", value: t.responded },
        ],
      });
    }

    const funnel = await run.tool<{
      totals: { converted: number };
      byChannel: { channel: string; sent: number; converted: number }[];
    }>("analytics.funnel", scope);
    const ranked = funnel.byChannel
      .filter((c) => c.sent >= MIN_SENDS)
      .sort((a, b) => b.converted / b.sent - a.converted / a.sent);
    if (ranked.length >= 2) {
      const top = ranked[0]!;
      const low = ranked[ranked.length - 1]!;
      const extra = low.sent * (top.converted / top.sent - low.converted / low.sent);
      if (extra >= 1) {
        const evidence: Evidence[] = [top, low].map((c) => ({
          source: "analytics.funnel",
          id: null,
          label: `${c.channel} sent / converted`,
          value: `${c.sent} / ${c.converted}`,
        }));
        actions.push({
          kind: "channel_shift",
          title: `Send more requests by ${top.channel} instead of ${low.channel}`,
          rationale: `${top.channel} converts ${round((top.converted / top.sent) * 100, 1)}% vs ${round((low.converted / low.sent) * 100, 1)}% for ${low.channel}; the ${low.sent} ${low.channel} sends of the window would have brought about ${Math.round(extra)} more reviews.`,
          expectedImpact: { metric: "extra conversions over the window", estimate: round(extra, 1), unit: "reviews" },
          score: round(Math.min(100, 30 + (extra / Math.max(1, funnel.totals.converted)) * 100), 1),
          recommendationId: null,
          evidence,
        });
      }
    }
    actions.sort((a, b) => b.score - a.score || a.title.localeCompare(b.title));
    return { actions: actions.slice(0, i.limit).map((a, k) => ({ rank: k + 1, ...a })) };
  },
});
