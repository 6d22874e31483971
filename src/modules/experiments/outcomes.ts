import type { ExperimentVariant } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";

/** What happened to the solicitations sent under one variant. */
export interface VariantOutcomes {
  sent: number;
  delivered: number;
  clicked: number;
  converted: number;
}

/** Per-variant outcome counts of an experiment, keyed by variant id (a missing variant counts zero). */
export type OutcomeSource = (
  ctx: ServiceContext,
  experiment: { id: string; variants: Pick<ExperimentVariant, "id">[] },
) => Promise<Map<string, VariantOutcomes>>;

/**
 * Until solicitations exist (the [sending] issue) nothing can have been sent under an experiment, so
 * every count is zero because there are no sends: that is the true figure, not a stand-in.
 */
const noSolicitationsYet: OutcomeSource = async () => new Map();

let source: OutcomeSource = noSolicitationsYet;

/** [sending] plugs in its solicitation counts with one call: `registerOutcomeSource(countsFromSolicitations)`. */
export const registerOutcomeSource = (s: OutcomeSource) => {
  source = s;
};

export const outcomesOf: OutcomeSource = (ctx, experiment) => source(ctx, experiment);
