/**
 * The reputation score (0..100) of a location: a weighted sum of five components, each 0..100.
 * docs/analytics.md explains the choices; the test recomputes an example by hand.
 */
export const SCORE_WEIGHTS = {
  rating: 0.35,
  velocity: 0.2,
  sentiment: 0.2,
  responseHealth: 0.15,
  platformDiversity: 0.1,
} as const;

/** Bayesian prior for the rating: a location with few reviews is pulled towards 3.5 stars as if it had 5 more. */
export const RATING_PRIOR = { mean: 3.5, weight: 5 } as const;
/** Reviews in 30 days for full velocity marks. */
export const VELOCITY_TARGET = 8;
/** Distinct review sites (in 365 days) for full diversity marks. */
export const DIVERSITY_TARGET = 3;
/** Where a component has no data at all, it is neutral. */
export const NEUTRAL = 50;

export interface ScoreInputs {
  /** last 365 days */
  rated365: number;
  ratingSum365: number;
  sites365: number;
  /** last 30 days */
  reviews30: number;
  /** last 90 days */
  positive90: number;
  neutral90: number;
  negative90: number;
  arrived90: number;
  responded90: number;
  slaMet90: number;
  slaMissed90: number;
}

export type ScoreComponents = { [K in keyof typeof SCORE_WEIGHTS]: number };

const round1 = (x: number) => Math.round(x * 10) / 10;
const clamp = (x: number) => Math.min(100, Math.max(0, x));

export function scoreComponents(i: ScoreInputs): ScoreComponents {
  const avg = (i.ratingSum365 + RATING_PRIOR.mean * RATING_PRIOR.weight) / (i.rated365 + RATING_PRIOR.weight);
  const withSentiment = i.positive90 + i.neutral90 + i.negative90;
  const responseRate = i.arrived90 ? i.responded90 / i.arrived90 : null;
  const slaDecided = i.slaMet90 + i.slaMissed90;
  const responseHealth =
    responseRate === null
      ? NEUTRAL
      : slaDecided
        ? 100 * (0.6 * responseRate + 0.4 * (i.slaMet90 / slaDecided))
        : 100 * responseRate;
  return {
    rating: round1(clamp(((avg - 1) / 4) * 100)),
    velocity: round1(clamp((100 * i.reviews30) / VELOCITY_TARGET)),
    sentiment: round1(withSentiment ? clamp(50 + (50 * (i.positive90 - i.negative90)) / withSentiment) : NEUTRAL),
    responseHealth: round1(clamp(responseHealth)),
    platformDiversity: round1(clamp((100 * i.sites365) / DIVERSITY_TARGET)),
  };
}

/** The weighted sum of the (rounded) components, rounded to an integer. */
export const scoreOf = (c: ScoreComponents) =>
  Math.round(
    (Object.keys(SCORE_WEIGHTS) as (keyof ScoreComponents)[]).reduce((s, k) => s + SCORE_WEIGHTS[k] * c[k], 0),
  );
