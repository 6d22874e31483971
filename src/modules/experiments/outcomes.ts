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
