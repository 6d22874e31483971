import type { TenantMoveState } from "../../db/schema";
import { invalidTransition } from "../../lib/errors";

/**
 * A tenant move's state machine (docs/scaling.md, "Moving a tenant"). A state may follow itself:
 * most phases take many slices. Before the flip (fencing, copying, verifying) a failure rolls back
 * (the copy is deleted, the fence lifted, the tenant stays on its shard); from settling on the
 * tenant lives on the target and the job only goes forward.
 */
const NEXT: Record<TenantMoveState, readonly TenantMoveState[]> = {
  fencing: ["copying", "rolling_back"],
  copying: ["copying", "verifying", "rolling_back"],
  verifying: ["verifying", "settling", "rolling_back"],
  settling: ["rechecking", "deleting", "succeeded"],
  rechecking: ["rechecking", "deleting", "succeeded"],
  deleting: ["deleting", "succeeded"],
  rolling_back: ["rolling_back", "failed"],
  succeeded: [],
  failed: [],
};

export function assertMoveTransition(from: TenantMoveState, to: TenantMoveState) {
  if (!NEXT[from].includes(to)) throw invalidTransition(from, to, "Tenant move");
}

export const isFinished = (s: TenantMoveState) => NEXT[s].length === 0;

/** States in which the tenant still lives on the source shard and a failure undoes the move. */
export const canRollBack = (s: TenantMoveState) => NEXT[s].includes("rolling_back");
