import { describe, expect, it } from "vitest";
import { assignmentPoint, assignVariant } from "../../src/modules/experiments/assignment";
import { computeResults } from "../../src/modules/experiments/results";
import { normalCdf, twoProportionZTest } from "../../src/modules/experiments/stats";

const variants = (...split: number[]) =>
  split.map((p, i) => ({ id: `v${i}`, name: `V${i}`, trafficPercent: p, templateId: null, config: {} }));

describe("deterministic assignment", () => {
  const experiment = { id: "exp_1", variants: variants(50, 30, 20) };

  it("gives the same contact the same variant every time", () => {
    for (const contact of ["c1", "c2", "contact-xyz", "ä-unicode"]) {
      const first = assignVariant(experiment, contact).id;
      for (let i = 0; i < 5; i++) expect(assignVariant(experiment, contact).id).toBe(first);
    }
  });

  it("depends on the experiment: another experiment reshuffles contacts", () => {
    const ids = Array.from({ length: 200 }, (_, i) => `contact-${i}`);
    const a = ids.map((c) => assignVariant(experiment, c).id);
    const b = ids.map((c) => assignVariant({ ...experiment, id: "exp_2" }, c).id);
    expect(a).not.toEqual(b);
    expect(assignmentPoint("exp_1", "c1")).not.toBe(assignmentPoint("exp_2", "c1"));
  });

  it.each([[[50, 50]], [[50, 30, 20]], [[10, 90]], [[33.3, 33.3, 33.4]]])(
    "matches the split %j within 2 percentage points over 10,000 contacts",
    (split) => {
      const e = { id: `exp-${split.join("-")}`, variants: variants(...split) };
      const counts = new Map<string, number>();
      for (let i = 0; i < 10_000; i++) {
        const v = assignVariant(e, `contact-${i}`);
        counts.set(v.id, (counts.get(v.id) ?? 0) + 1);
      }
      e.variants.forEach((v) => {
        expect(Math.abs(((counts.get(v.id) ?? 0) / 10_000) * 100 - v.trafficPercent)).toBeLessThan(2);
      });
    },
  );

  it("never assigns a variant with 0% traffic", () => {
    const e = { id: "exp-zero", variants: variants(0, 100, 0) };
    for (let i = 0; i < 2000; i++) expect(assignVariant(e, `c${i}`).id).toBe("v1");
  });
});

describe("normal distribution", () => {
  it.each([
    [0, 0.5],
    [1.96, 0.975002],
    [1.645, 0.950015],
    [2.576, 0.995002],
    [-1.96, 0.024998],
    [3.29, 0.999499],
  ])("Phi(%d) = %d (standard normal table)", (z, p) => {
    expect(normalCdf(z)).toBeCloseTo(p, 5);
  });
});

describe("two-proportion z-test", () => {
  // reference values from scipy.stats: z = (p2 - p1) / sqrt(p(1-p)(1/n1 + 1/n2)), p = 2 * norm.sf(|z|)
  it.each([
    { control: [45, 100], variant: [60, 100], z: 2.12398, p: 0.033672 },
    { control: [200, 1000], variant: [250, 1000], z: 2.6774, p: 0.0074196 },
    { control: [120, 1000], variant: [100, 1000], z: -1.4293, p: 0.152918 },
    { control: [30, 200], variant: [30, 200], z: 0, p: 1 },
  ])("$control vs $variant -> z $z, p $p", ({ control, variant, z, p }) => {
    const t = twoProportionZTest(
      { successes: control[0]!, trials: control[1]! },
      { successes: variant[0]!, trials: variant[1]! },
    )!;
    expect(t.z).toBeCloseTo(z, 4);
    expect(t.pValue).toBeCloseTo(p, 5);
    expect(t.difference).toBeCloseTo(variant[0]! / variant[1]! - control[0]! / control[1]!, 12);
  });

  it("gives the lift relative to the control rate", () => {
    expect(twoProportionZTest({ successes: 200, trials: 1000 }, { successes: 250, trials: 1000 })!.lift).toBeCloseTo(
      0.25,
      12,
    );
    expect(twoProportionZTest({ successes: 0, trials: 100 }, { successes: 5, trials: 100 })!.lift).toBeNull();
  });

  it("is undefined without trials or without variation", () => {
    expect(twoProportionZTest({ successes: 0, trials: 0 }, { successes: 5, trials: 10 })).toBeNull();
    expect(twoProportionZTest({ successes: 0, trials: 10 }, { successes: 0, trials: 10 })).toBeNull();
    expect(twoProportionZTest({ successes: 10, trials: 10 }, { successes: 10, trials: 10 })).toBeNull();
  });
});

describe("computeResults", () => {
  const e = { id: "exp", status: "running" as const, winnerVariantId: null, variants: variants(50, 50) };

  it("computes rates over sends and tests each variant against the control", () => {
    const out = computeResults(
      e,
      new Map([
        ["v0", { sent: 1000, delivered: 950, clicked: 300, converted: 200 }],
        ["v1", { sent: 1000, delivered: 960, clicked: 310, converted: 250 }],
      ]),
    );
    expect(out.controlVariantId).toBe("v0");
    expect(out.variants[0]).toMatchObject({
      variantId: "v0",
      isControl: true,
      deliveryRate: 0.95,
      clickRate: 0.3,
      conversionRate: 0.2,
      vsControl: null,
    });
    const v1 = out.variants[1]!;
    expect(v1).toMatchObject({ sent: 1000, delivered: 960, clicked: 310, converted: 250, conversionRate: 0.25 });
    expect(v1.vsControl!.conversionRate!.pValue).toBeCloseTo(0.0074196, 5);
    expect(v1.vsControl!.conversionRate!.significant).toBe(true);
    expect(v1.vsControl!.clickRate!.significant).toBe(false);
  });

  it("reports zeros, null rates and null tests when nothing was sent", () => {
    const out = computeResults(e, new Map());
    expect(out.variants.map((v) => [v.sent, v.delivered, v.clicked, v.converted, v.conversionRate])).toEqual([
      [0, 0, 0, 0, null],
      [0, 0, 0, 0, null],
    ]);
    expect(out.variants[1]!.vsControl).toEqual({ clickRate: null, conversionRate: null });
  });
});
