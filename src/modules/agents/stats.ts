import { normalCdf, twoProportionZTest } from "../experiments/stats";

export { normalCdf, twoProportionZTest };

/**
 * Inverse of the standard normal CDF (Acklam's rational approximation, relative error below
 * 1.15e-9), refined by one Halley step against normalCdf.
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError("normalQuantile needs 0 < p < 1");
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
  ];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  let x: number;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    x =
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  } else if (p <= 1 - low) {
    const q = p - 0.5;
    const r = q * q;
    x =
      ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
      (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x =
      -(((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  const e = normalCdf(x) - p;
  const u = e * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2);
  return x - u / (1 + (x * u) / 2);
}

export interface SampleSizeInput {
  /** control conversion rate, 0..1 */
  baseline: number;
  /** absolute difference to detect (0.02 = two percentage points) */
  minimumDetectableEffect: number;
  alpha: number;
  power: number;
  twoSided: boolean;
}

/**
 * Sample size per arm for comparing two proportions (the normal-approximation formula without
 * continuity correction, as in Fleiss and most power calculators):
 *   n = (z_{alpha} * sqrt(2 * pbar * (1 - pbar)) + z_{beta} * sqrt(p1 (1 - p1) + p2 (1 - p2)))^2 / (p2 - p1)^2
 * with pbar = (p1 + p2) / 2, rounded up. p1 = 0.10, p2 = 0.12, alpha 0.05 two-sided, power 0.8 -> 3,841.
 */
export function sampleSizePerArm(i: SampleSizeInput): number {
  const p1 = i.baseline;
  const p2 = i.baseline + i.minimumDetectableEffect;
  if (!(p1 > 0 && p1 < 1 && p2 > 0 && p2 < 1) || p1 === p2)
    throw new RangeError("baseline and baseline + effect must lie strictly between 0 and 1 and differ");
  const zAlpha = normalQuantile(1 - (i.twoSided ? i.alpha / 2 : i.alpha));
  const zBeta = normalQuantile(i.power);
  const pbar = (p1 + p2) / 2;
  const num = zAlpha * Math.sqrt(2 * pbar * (1 - pbar)) + zBeta * Math.sqrt(p1 * (1 - p1) + p2 * (1 - p2));
  return Math.ceil((num * num) / ((p2 - p1) * (p2 - p1)));
}

export interface Interval {
  low: number;
  high: number;
}

/** Wilson score interval for a proportion (better than Wald for small counts and rates near 0 or 1). */
export function wilsonInterval(successes: number, trials: number, confidence = 0.95): Interval | null {
  if (trials <= 0) return null;
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const p = successes / trials;
  const z2n = (z * z) / trials;
  const centre = (p + z2n / 2) / (1 + z2n);
  const half = (z / (1 + z2n)) * Math.sqrt((p * (1 - p)) / trials + z2n / (4 * trials));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** Wald interval of a difference of two proportions (p2 - p1), unpooled. */
export function differenceInterval(
  a: { successes: number; trials: number },
  b: { successes: number; trials: number },
  confidence = 0.95,
): Interval | null {
  if (a.trials <= 0 || b.trials <= 0) return null;
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const p1 = a.successes / a.trials;
  const p2 = b.successes / b.trials;
  const se = Math.sqrt((p1 * (1 - p1)) / a.trials + (p2 * (1 - p2)) / b.trials);
  return { low: p2 - p1 - z * se, high: p2 - p1 + z * se };
}

export const round = (x: number, digits = 4) => Math.round(x * 10 ** digits) / 10 ** digits;
export const rate = (part: number, whole: number) => (whole > 0 ? part / whole : null);
