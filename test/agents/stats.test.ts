import { describe, expect, it } from "vitest";
import { equalSplit } from "../../src/modules/agents/agents/experiment-designer";
import {
  differenceInterval,
  normalQuantile,
  sampleSizePerArm,
  twoProportionZTest,
  wilsonInterval,
} from "../../src/modules/agents/stats";

describe("statistics", () => {
  it("normal quantiles match the tables", () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(normalQuantile(0.8)).toBeCloseTo(0.841621, 5);
    expect(normalQuantile(0.95)).toBeCloseTo(1.644854, 5);
    expect(normalQuantile(0.01)).toBeCloseTo(-2.326348, 5);
  });

  it("sample size per arm for two proportions", () => {
    expect(
      sampleSizePerArm({ baseline: 0.1, minimumDetectableEffect: 0.02, alpha: 0.05, power: 0.8, twoSided: true }),
    ).toBe(3841);
    expect(
      sampleSizePerArm({ baseline: 0.2, minimumDetectableEffect: 0.05, alpha: 0.05, power: 0.8, twoSided: true }),
    ).toBe(1094);
    expect(
      sampleSizePerArm({ baseline: 0.1, minimumDetectableEffect: 0.02, alpha: 0.05, power: 0.8, twoSided: false }),
    ).toBe(3026);
    expect(() =>
      sampleSizePerArm({ baseline: 0.99, minimumDetectableEffect: 0.02, alpha: 0.05, power: 0.8, twoSided: true }),
    ).toThrow(RangeError);
  });

  it("z-test p-values, Wilson and Wald intervals", () => {
    const t = twoProportionZTest({ successes: 100, trials: 1000 }, { successes: 130, trials: 1000 })!;
    expect(t.z).toBeCloseTo(2.1027, 3);
    expect(t.pValue).toBeCloseTo(0.03549, 4);
    expect(twoProportionZTest({ successes: 50, trials: 500 }, { successes: 50, trials: 500 })!.pValue).toBeCloseTo(
      1,
      6,
    );
    const w = wilsonInterval(100, 1000)!;
    expect(w.low).toBeCloseTo(0.08291, 4);
    expect(w.high).toBeCloseTo(0.12015, 4);
    expect(wilsonInterval(0, 10)!.low).toBeCloseTo(0, 10);
    expect(wilsonInterval(0, 10)!.high).toBeCloseTo(0.27753, 4);
    const d = differenceInterval({ successes: 100, trials: 1000 }, { successes: 130, trials: 1000 })!;
    expect(d.low).toBeCloseTo(0.002068, 4);
    expect(d.high).toBeCloseTo(0.057932, 4);
  });

  it("splits traffic in whole percents", () => {
    expect(equalSplit(2)).toEqual([50, 50]);
    expect(equalSplit(3)).toEqual([34, 33, 33]);
    expect(equalSplit(4)).toEqual([25, 25, 25, 25]);
  });
});
