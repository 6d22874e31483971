/** Complementary error function: the Chebyshev fit of Numerical Recipes (erfcc), fractional error below 1.2e-7. */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** Standard normal cumulative distribution. */
export const normalCdf = (z: number) => 0.5 * erfc(-z / Math.SQRT2);

export interface ProportionTest {
  /** positive when the treatment's rate is above the control's */
  z: number;
  /** two-sided */
  pValue: number;
  /** treatment rate minus control rate */
  difference: number;
  /** relative change of the rate against control; null when the control rate is 0 */
  lift: number | null;
}

/**
 * Two-proportion z-test with the pooled standard error, two-sided: is the treatment's success rate
 * different from the control's? Null when it is undefined (an empty group, or no variation at all).
 */
export function twoProportionZTest(
  control: { successes: number; trials: number },
  treatment: { successes: number; trials: number },
): ProportionTest | null {
  const { successes: x1, trials: n1 } = control;
  const { successes: x2, trials: n2 } = treatment;
  if (n1 <= 0 || n2 <= 0) return null;
  const p1 = x1 / n1;
  const p2 = x2 / n2;
  const pooled = (x1 + x2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  if (se === 0) return null;
  const z = (p2 - p1) / se;
  return { z, pValue: erfc(Math.abs(z) / Math.SQRT2), difference: p2 - p1, lift: p1 === 0 ? null : (p2 - p1) / p1 };
}
