import { createHash } from "node:crypto";
import type { ExperimentVariant } from "../../db/schema";

/**
 * A point in [0, 100) fixed by the experiment and the contact: the first 48 bits of
 * SHA-256("{experimentId}:{contactId}") scaled to the percent range.
 */
export function assignmentPoint(experimentId: string, contactId: string): number {
  const digest = createHash("sha256").update(`${experimentId}:${contactId}`).digest();
  return (digest.readUIntBE(0, 6) / 2 ** 48) * 100;
}

/**
 * The variant a contact receives: the point falls into the variants' cumulative traffic split, so
 * the same contact always gets the same variant of an experiment, and a variant with 0% gets no one.
 */
export function assignVariant<V extends Pick<ExperimentVariant, "id" | "trafficPercent">>(
  experiment: { id: string; variants: V[] },
  contactId: string,
): V {
  const point = assignmentPoint(experiment.id, contactId);
  let upper = 0;
  for (const variant of experiment.variants) {
    upper += variant.trafficPercent;
    if (point < upper) return variant;
  }
  // rounding: a sum of 99.999... leaves a sliver at the top; it belongs to the last variant with traffic
  const last = [...experiment.variants].reverse().find((v) => v.trafficPercent > 0);
  if (!last) throw new Error("assignVariant: the experiment has no traffic");
  return last;
}
