import { z } from "@hono/zod-openapi";
import { defineAgent } from "../define";
import { differenceInterval, type Interval, rate, round, twoProportionZTest, wilsonInterval } from "../stats";
import { type Evidence, Evidences, RangeInput, rangeOf } from "../types";

export const SIGNIFICANCE = 0.05;

const input = z
  .object({
    experimentId: z.string().min(1).max(64).optional(),
    campaignId: z.string().min(1).max(64).optional(),
    ...RangeInput,
  })
  .refine((i) => Boolean(i.experimentId) !== Boolean(i.campaignId), {
    message: "Give exactly one of experimentId or campaignId",
  })
  .openapi("OutcomeAnalystInput");

const IntervalSchema = z.object({ low: z.number(), high: z.number() });
const Test = z.object({
  difference: z.number(),
  differenceCi: IntervalSchema.nullable(),
  z: z.number(),
  pValue: z.number(),
  significant: z.boolean(),
});

const output = z
  .object({
    target: z.object({ kind: z.enum(["experiment", "campaign"]), id: z.string(), name: z.string() }),
    significanceLevel: z.number(),
    groups: z.array(
      z.object({
        key: z.string().describe("variant id, or channel:templateId for a campaign"),
        label: z.string(),
        isBaseline: z.boolean().describe("the control (experiments) or the group with the most sends (campaigns)"),
        sent: z.number().int(),
        clicked: z.number().int(),
        converted: z.number().int(),
        clickRate: z.number().nullable(),
        clickRateCi: IntervalSchema.nullable().describe("95% Wilson interval"),
        conversionRate: z.number().nullable(),
        conversionRateCi: IntervalSchema.nullable().describe("95% Wilson interval"),
        vsBaseline: z
          .object({ clickRate: Test.nullable(), conversionRate: Test.nullable() })
          .nullable()
          .describe("pooled two-proportion z-test, two-sided; difference CI is Wald"),
        evidence: Evidences,
      }),
    ),
    winner: z
      .string()
      .nullable()
      .describe("the key of a group significantly better on conversion than the baseline, if any"),
    verdict: z.string(),
  })
  .openapi("OutcomeAnalystOutput");

interface Counts {
  key: string;
  label: string;
  sent: number;
  clicked: number;
  converted: number;
  source: string;
  id: string;
}

const ci = (x: Interval | null) => (x ? { low: round(x.low), high: round(x.high) } : null);

function test(base: Counts, g: Counts, metric: "clicked" | "converted") {
  const a = { successes: base[metric], trials: base.sent };
  const b = { successes: g[metric], trials: g.sent };
  const t = twoProportionZTest(a, b);
  if (!t) return null;
  return {
    difference: round(t.difference),
    differenceCi: ci(differenceInterval(a, b)),
    z: round(t.z),
    pValue: round(t.pValue, 6),
    significant: t.pValue < SIGNIFICANCE,
  };
}

function analyse(
  target: { kind: "experiment" | "campaign"; id: string; name: string },
  groups: Counts[],
  baselineKey: string | null,
) {
  const base = groups.find((g) => g.key === baselineKey) ?? [...groups].sort((a, b) => b.sent - a.sent)[0];
  const rows = groups.map((g) => {
    const isBaseline = g === base;
    const evidence: Evidence[] = [
      { source: g.source, id: g.id, label: `${g.label}: sent`, value: g.sent },
      { source: g.source, id: g.id, label: `${g.label}: converted`, value: g.converted },
    ];
    return {
      key: g.key,
      label: g.label,
      isBaseline,
      sent: g.sent,
      clicked: g.clicked,
      converted: g.converted,
      clickRate: rate(g.clicked, g.sent),
      clickRateCi: ci(wilsonInterval(g.clicked, g.sent)),
      conversionRate: rate(g.converted, g.sent),
      conversionRateCi: ci(wilsonInterval(g.converted, g.sent)),
      vsBaseline:
        isBaseline || !base
          ? null
          : { clickRate: test(base, g, "clicked"), conversionRate: test(base, g, "converted") },
      evidence,
    };
  });
  const better = rows
    .filter((r) => r.vsBaseline?.conversionRate?.significant && r.vsBaseline.conversionRate.difference > 0)
    .sort((a, b) => a.vsBaseline!.conversionRate!.pValue - b.vsBaseline!.conversionRate!.pValue);
  const worse = rows.filter(
    (r) => r.vsBaseline?.conversionRate?.significant && r.vsBaseline.conversionRate.difference < 0,
  );
  const pct = (x: number | null) => (x === null ? "n/a" : `${round(x * 100, 1)}%`);
  let verdict: string;
  if (!base || base.sent === 0) verdict = "Nothing was sent yet, so there is nothing to compare.";
  else if (rows.length < 2)
    verdict = `Only one group (${base.label}) has sends: ${pct(rate(base.converted, base.sent))} converted of ${base.sent}. Nothing to compare.`;
  else if (better.length) {
    const w = better[0]!;
    verdict = `${w.label} converts better than ${base.label}: ${pct(w.conversionRate)} vs ${pct(rate(base.converted, base.sent))} (p = ${w.vsBaseline!.conversionRate!.pValue}, significant at ${SIGNIFICANCE}).`;
  } else if (worse.length)
    verdict = `${worse.map((r) => r.label).join(", ")} convert${worse.length === 1 ? "s" : ""} significantly worse than ${base.label}; keep ${base.label}.`;
  else
    verdict = `No group differs significantly from ${base.label} on conversion at ${SIGNIFICANCE} (smallest p = ${Math.min(...rows.flatMap((r) => (r.vsBaseline?.conversionRate ? [r.vsBaseline.conversionRate.pValue] : [1])))}); keep collecting data or stop as inconclusive.`;
  return { target, significanceLevel: SIGNIFICANCE, groups: rows, winner: better[0]?.key ?? null, verdict };
}

export const outcomeAnalyst = defineAgent({
  name: "agent.outcome-analyst",
  title: "Outcome analyst",
  description:
    "Analyses an experiment (experimentId, per variant) or a campaign (campaignId, per channel and template): click and conversion rates with " +
    "95% intervals, z-tests against the control (or the biggest group) and a plain-language verdict.",
  input,
  output,
  systemPrompt:
    "You analyse A/B experiments and campaigns. Report rates with confidence intervals and two-proportion z-test p-values " +
    "computed from the counts the tools return, then a plain-language verdict. Never claim significance without p < 0.05.",
  tools: ["experiment.get", "experiment.results", "campaign.metrics"],
  range: (i) => (i.campaignId ? rangeOf(i) : null),
  async rules(run, i) {
    if (i.experimentId) {
      const e = await run.tool<{ id: string; name: string }>("experiment.get", { experimentId: i.experimentId });
      const r = await run.tool<{
        controlVariantId: string;
        variants: { variantId: string; name: string; sent: number; clicked: number; converted: number }[];
      }>("experiment.results", { experimentId: i.experimentId });
      const groups = r.variants.map((v) => ({
        key: v.variantId,
        label: v.name,
        sent: v.sent,
        clicked: v.clicked,
        converted: v.converted,
        source: "experiment.results",
        id: v.variantId,
      }));
      return analyse({ kind: "experiment", id: e.id, name: e.name }, groups, r.controlVariantId);
    }
    const m = await run.tool<{
      campaignId: string;
      name: string;
      byTemplate: { channel: string; templateId: string | null; sent: number; clicked: number; converted: number }[];
    }>("campaign.metrics", { campaignId: i.campaignId, since: `${run.range!.from}T00:00:00.000Z` });
    const groups = m.byTemplate.map((t) => ({
      key: `${t.channel}:${t.templateId ?? "none"}`,
      label: `${t.channel} ${t.templateId ? `template ${t.templateId}` : "(no template)"}`,
      sent: t.sent,
      clicked: t.clicked,
      converted: t.converted,
      source: "campaign.metrics",
      id: t.templateId ?? m.campaignId,
    }));
    return analyse({ kind: "campaign", id: m.campaignId, name: m.name }, groups, null);
  },
});
