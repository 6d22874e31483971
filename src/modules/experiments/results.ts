import type { VariantOutcomes } from "./outcomes";
import type { ExperimentResults, ExperimentRow } from "./schemas";
import { twoProportionZTest } from "./stats";

export const SIGNIFICANCE_LEVEL = 0.05;

const ZERO: VariantOutcomes = { sent: 0, delivered: 0, clicked: 0, converted: 0 };
const rate = (part: number, whole: number) => (whole > 0 ? part / whole : null);

function test(control: VariantOutcomes, variant: VariantOutcomes, metric: "clicked" | "converted") {
  const t = twoProportionZTest(
    { successes: control[metric], trials: control.sent },
    { successes: variant[metric], trials: variant.sent },
  );
  return t ? { ...t, significant: t.pValue < SIGNIFICANCE_LEVEL } : null;
}

/** Rates per variant (over sends) and two-proportion z-tests of each variant against the control (the first). */
export function computeResults(
  e: Pick<ExperimentRow, "id" | "status" | "variants" | "winnerVariantId">,
  outcomes: Map<string, VariantOutcomes>,
): ExperimentResults {
  const control = e.variants[0]!;
  const controlCounts = outcomes.get(control.id) ?? ZERO;
  return {
    experimentId: e.id,
    status: e.status,
    controlVariantId: control.id,
    winnerVariantId: e.winnerVariantId,
    significanceLevel: SIGNIFICANCE_LEVEL,
    variants: e.variants.map((v) => {
      const c = outcomes.get(v.id) ?? ZERO;
      const isControl = v.id === control.id;
      return {
        variantId: v.id,
        name: v.name,
        trafficPercent: v.trafficPercent,
        isControl,
        sent: c.sent,
        delivered: c.delivered,
        clicked: c.clicked,
        converted: c.converted,
        deliveryRate: rate(c.delivered, c.sent),
        clickRate: rate(c.clicked, c.sent),
        conversionRate: rate(c.converted, c.sent),
        vsControl: isControl
          ? null
          : { clickRate: test(controlCounts, c, "clicked"), conversionRate: test(controlCounts, c, "converted") },
      };
    }),
  };
}
