import Sentiment from "sentiment";
import type { Sentiment as SentimentLabel } from "../../../db/schema";

/**
 * Review vocabulary AFINN-165 lacks or weighs for general text; scored on AFINN's -5..5 scale.
 * Applied on top of AFINN (the `sentiment` package, which also handles "not good" negation).
 */
export const REVIEW_LEXICON: Record<string, number> = {
  slow: -2,
  overpriced: -2,
  pricey: -1,
  ripoff: -3,
  mediocre: -2,
  bland: -2,
  stale: -2,
  soggy: -2,
  filthy: -3,
  unprofessional: -3,
  unhelpful: -2,
  rude: -3,
  dismissive: -2,
  incompetent: -3,
  waited: -1,
  forever: -1,
  refund: -1,
  broken: -2,
  cold: -1,
  worst: -3,
  never: -1,
  unacceptable: -3,
  attentive: 2,
  courteous: 2,
  knowledgeable: 2,
  professional: 2,
  spotless: 3,
  delicious: 3,
  tasty: 2,
  prompt: 2,
  efficient: 2,
  welcoming: 2,
  affordable: 1,
  recommend: 2,
  recommended: 2,
  gentle: 2,
  thorough: 2,
  fast: 1,
  quick: 1,
  painless: 2,
  okay: 0,
  ok: 0,
  fine: 0,
  average: 0,
};

const analyser = new Sentiment();

export interface SentimentResult {
  sentiment: SentimentLabel | null;
  /** -1 (most negative) .. 1 (most positive); null when there was nothing to judge */
  score: number | null;
}

/** The text's AFINN score squashed to -1..1; about +-0.5 for one clearly worded opinion. */
export function textPolarity(text: string): number {
  const { score } = analyser.analyze(text, { extras: REVIEW_LEXICON });
  return score / (Math.abs(score) + 3);
}

const THRESHOLD = 0.15;
const RATING_WEIGHT = 0.6;

/**
 * Sentiment from the star rating and the text together. The rating is the reviewer's own verdict,
 * so it weighs more; the text moves a middling rating either way and tempers an extreme one.
 * AFINN is an English lexicon: for other languages the rating decides.
 */
export function analyseSentiment(input: {
  rating?: number | null;
  text?: string | null;
  language?: string | null;
}): SentimentResult {
  const hasRating = typeof input.rating === "number";
  const english = !input.language || input.language.toLowerCase().startsWith("en");
  const hasText = Boolean(input.text?.trim()) && english;
  if (!hasRating && !hasText) return { sentiment: null, score: null };
  const fromRating = hasRating ? (input.rating! - 3) / 2 : 0;
  const fromText = hasText ? textPolarity(input.text!) : 0;
  const score =
    hasRating && hasText
      ? RATING_WEIGHT * fromRating + (1 - RATING_WEIGHT) * fromText
      : hasRating
        ? fromRating
        : fromText;
  const rounded = Math.round(score * 1000) / 1000;
  return {
    sentiment: rounded > THRESHOLD ? "positive" : rounded < -THRESHOLD ? "negative" : "neutral",
    score: rounded,
  };
}
