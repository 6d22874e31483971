import { and, eq } from "drizzle-orm";
import { solicitations } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import type { CreatedSolicitation, SequenceStepRequest } from "../sequences/types";
import { createSolicitations } from "./create";

/**
 * A drip step becomes a solicitation through the same entry point as every send (policy, queue).
 * The step's idempotency key makes a retried step return the solicitation it already created.
 */
export async function createSequenceStep(ctx: ServiceContext, step: SequenceStepRequest): Promise<CreatedSolicitation> {
  const existing = await ctx.db
    .select({ id: solicitations.id, status: solicitations.status, blockedReason: solicitations.blockedReason })
    .from(solicitations)
    .where(
      and(
        eq(solicitations.tenantId, ctx.tenantId),
        eq(solicitations.contactId, step.contactId),
        eq(solicitations.idempotencyKey, step.idempotencyKey),
      ),
    )
    .get();
  if (existing) return existing;
  const { outcomes } = await createSolicitations(ctx, [step]);
  const outcome = outcomes[0]!;
  if (!outcome.ok)
    throw new Error(`sequence step ${step.sequenceStepIndex}: ${outcome.issue.path}: ${outcome.issue.message}`);
  const s = outcome.solicitation;
  return { id: s.id, status: s.status, blockedReason: s.blockedReason as CreatedSolicitation["blockedReason"] };
}
