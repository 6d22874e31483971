import { z } from "@hono/zod-openapi";
import { validationError } from "../../../lib/errors";
import { defineAgent } from "../define";
import { round, sampleSizePerArm } from "../stats";
import { daysIn, type Evidence, Evidences, RangeInput, rangeOf } from "../types";

const input = z
  .object({
    campaignId: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe("its history gives baseline and volume, its bound template the control"),
    metric: z
      .enum(["conversion", "click"])
      .default("conversion")
      .describe("conversion: a review or feedback came back"),
    baselineRate: z.number().gt(0).lt(1).optional().describe("default: the history's rate"),
    minimumDetectableEffect: z.number().gt(0).lt(1).describe("absolute (0.02 = 2 points) unless relative"),
    relative: z.boolean().default(false).describe("minimumDetectableEffect relative to the baseline (0.2 = +20%)"),
    alpha: z.number().gt(0).lt(0.5).default(0.05),
    power: z.number().gt(0.5).lt(1).default(0.8),
    twoSided: z.boolean().default(true),
    variants: z.number().int().min(2).max(5).default(2).describe("arms, control included"),
    hypothesis: z.string().max(2000).optional(),
    ...RangeInput,
  })
  .openapi("ExperimentDesignerInput");

const output = z
  .object({
    hypothesis: z.string(),
    metric: z.enum(["conversion", "click"]),
    baseline: z.object({
      rate: z.number(),
      source: z.enum(["input", "history"]),
      sent: z.number().int().nullable(),
      successes: z.number().int().nullable(),
    }),
    minimumDetectableEffect: z.object({ absolute: z.number(), relative: z.number(), targetRate: z.number() }),
    alpha: z.number(),
    alphaPerComparison: z
      .number()
      .describe("alpha / (variants - 1): Bonferroni correction when several treatments face the control"),
    power: z.number(),
    twoSided: z.boolean(),
    sampleSizePerVariant: z.number().int(),
    totalSampleSize: z.number().int(),
    variants: z.array(
      z.object({
        name: z.string(),
        trafficPercent: z.number(),
        templateId: z.string().nullable(),
        isControl: z.boolean(),
      }),
    ),
    dailySends: z.number().nullable().describe("average sends per day in the history window"),
    estimatedDays: z.number().int().nullable().describe("days to reach the sample at that volume"),
    formula: z.string(),
    evidence: Evidences,
  })
  .openapi("ExperimentDesignerOutput");

/** Equal split in whole percents; the remainder goes to the control. */
export function equalSplit(n: number): number[] {
  const each = Math.floor(100 / n);
  return Array.from({ length: n }, (_, i) => (i === 0 ? 100 - each * (n - 1) : each));
}

export const experimentDesigner = defineAgent({
  name: "agent.experiment-designer",
  title: "Experiment designer",
  description:
    "Designs an A/B test of a review-request campaign: hypothesis, variants and split, and the sample size per variant " +
    "for a minimum detectable effect, alpha and power (computed), with baseline and volume from the campaign's history " +
    "and the days the test takes.",
  input,
  output,
  systemPrompt:
    "You design A/B tests for review-request messages. Read the campaign's funnel for the baseline rate and volume. The sample " +
    "size must be computed with the two-proportion formula, never estimated.",
  tools: ["analytics.funnel", "campaign.get"],
  range: (i) => rangeOf(i),
  async rules(run, i) {
    const range = run.range!;
    const evidence: Evidence[] = [];
    const funnel = await run.tool<{ totals: { sent: number; clicked: number; converted: number } }>(
      "analytics.funnel",
      { dateFrom: range.from, dateTo: range.to, campaignId: i.campaignId },
    );
    const sent = funnel.totals.sent;
    const successes = i.metric === "click" ? funnel.totals.clicked : funnel.totals.converted;
    let baseline: number;
    if (i.baselineRate !== undefined) {
      baseline = i.baselineRate;
      evidence.push({ source: "input", id: null, label: "baseline rate", value: baseline });
    } else {
      if (sent === 0 || successes === 0) {
        throw validationError([
          {
            path: "baselineRate",
            message: `No ${i.metric === "click" ? "clicks" : "conversions"} in ${range.from}..${range.to} to estimate the baseline; give baselineRate`,
          },
        ]);
      }
      baseline = successes / sent;
      evidence.push(
        { source: "analytics.funnel", id: i.campaignId ?? null, label: "sends in window", value: sent },
        { source: "analytics.funnel", id: i.campaignId ?? null, label: `${i.metric}s in window`, value: successes },
      );
    }
    const absolute = i.relative ? baseline * i.minimumDetectableEffect : i.minimumDetectableEffect;
    const target = baseline + absolute;
    if (target >= 1)
      throw validationError([{ path: "minimumDetectableEffect", message: "baseline + effect must stay below 1" }]);
    const alphaPer = i.alpha / (i.variants - 1);
    const n = sampleSizePerArm({
      baseline,
      minimumDetectableEffect: absolute,
      alpha: alphaPer,
      power: i.power,
      twoSided: i.twoSided,
    });
    let controlTemplate: string | null = null;
    if (i.campaignId) {
      const c = await run.tool<{ templates: { templateId: string; isControl: boolean }[] }>("campaign.get", {
        campaignId: i.campaignId,
      });
      controlTemplate = c.templates.find((t) => t.isControl)?.templateId ?? c.templates[0]?.templateId ?? null;
      if (controlTemplate)
        evidence.push({
          source: "campaign.get",
          id: controlTemplate,
          label: "control template",
          value: controlTemplate,
        });
    }
    const split = equalSplit(i.variants);
    const dailySends = sent > 0 ? sent / daysIn(range) : null;
    const pct = (x: number) => `${round(x * 100, 2)}%`;
    return {
      hypothesis:
        i.hypothesis ??
        `The new variant${i.variants > 2 ? "s change" : " changes"} the ${i.metric} rate from ${pct(baseline)} to at least ${pct(target)}.`,
      metric: i.metric,
      baseline: {
        rate: round(baseline, 6),
        source: i.baselineRate !== undefined ? ("input" as const) : ("history" as const),
        sent: i.baselineRate !== undefined ? null : sent,
        successes: i.baselineRate !== undefined ? null : successes,
      },
      minimumDetectableEffect: {
        absolute: round(absolute, 6),
        relative: round(absolute / baseline, 6),
        targetRate: round(target, 6),
      },
      alpha: i.alpha,
      alphaPerComparison: round(alphaPer, 6),
      power: i.power,
      twoSided: i.twoSided,
      sampleSizePerVariant: n,
      totalSampleSize: n * i.variants,
      variants: split.map((trafficPercent, k) => ({
        name: k === 0 ? "Control" : `Variant ${String.fromCharCode(65 + k)}`,
        trafficPercent,
        templateId: k === 0 ? controlTemplate : null,
        isControl: k === 0,
      })),
      dailySends: dailySends === null ? null : round(dailySends, 2),
      estimatedDays: dailySends ? Math.ceil((n * i.variants) / dailySends) : null,
      formula:
        "n = (z(1-a/2)*sqrt(2*pbar*(1-pbar)) + z(power)*sqrt(p1(1-p1)+p2(1-p2)))^2 / (p2-p1)^2, pbar=(p1+p2)/2, rounded up",
      evidence,
    };
  },
});
