import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import { solicitations } from "../../db/schema";
import { validationError } from "../../lib/errors";
import { eventStatement } from "../../lib/events";
import { nowIso } from "../../lib/time";
import type { OutcomeSource, VariantOutcomes } from "../experiments/outcomes";
import type { SolicitationConversionHook } from "../reviews/hooks";

/**
 * A new review naming a solicitation converts it: convertedAt (the review's time) is set once, by
 * the first review, with solicitation.converted, in the review's own batch. An id that is not a
 * solicitation of this tenant is a 400.
 */
export const convertSolicitation: SolicitationConversionHook = async (ctx, c) => {
  const s = await ctx.db
    .select({
      id: solicitations.id,
      contactId: solicitations.contactId,
      campaignId: solicitations.campaignId,
      convertedAt: solicitations.convertedAt,
    })
    .from(solicitations)
    .where(and(eq(solicitations.id, c.solicitationId), eq(solicitations.tenantId, ctx.tenantId)))
    .get();
  if (!s) throw validationError([{ path: "solicitationId", message: "Unknown solicitation" }]);
  if (s.convertedAt) return { statements: [], events: [] };
  return {
    statements: [
      ctx.db
        .update(solicitations)
        .set({ convertedAt: c.occurredAt, updatedAt: nowIso() })
        .where(
          and(eq(solicitations.id, s.id), eq(solicitations.tenantId, ctx.tenantId), isNull(solicitations.convertedAt)),
        ),
    ],
    events: [
      eventStatement(ctx, "solicitation.converted", {
        solicitationId: s.id,
        reviewId: c.reviewId,
        contactId: s.contactId,
        campaignId: s.campaignId,
        convertedAt: c.occurredAt,
      }),
    ],
  };
};

const counted = (cond: ReturnType<typeof isNotNull>) => sql<number>`sum(case when ${cond} then 1 else 0 end)`;

/**
 * Per-variant outcomes of an experiment: sent = handed to a provider (sentAt set, whatever
 * happened next), delivered = deliveredAt set, clicked = clickedAt set, converted = convertedAt set.
 * Blocked and never-sent solicitations count nowhere.
 */
export const outcomesFromSolicitations: OutcomeSource = async (ctx, experiment) => {
  const rows = await ctx.db
    .select({
      variantId: solicitations.variantId,
      sent: counted(isNotNull(solicitations.sentAt)),
      delivered: counted(isNotNull(solicitations.deliveredAt)),
      clicked: counted(isNotNull(solicitations.clickedAt)),
      converted: counted(isNotNull(solicitations.convertedAt)),
    })
    .from(solicitations)
    .where(and(eq(solicitations.tenantId, ctx.tenantId), eq(solicitations.experimentId, experiment.id)))
    .groupBy(solicitations.variantId);
  const out = new Map<string, VariantOutcomes>();
  for (const r of rows) {
    if (r.variantId)
      out.set(r.variantId, {
        sent: Number(r.sent),
        delivered: Number(r.delivered),
        clicked: Number(r.clicked),
        converted: Number(r.converted),
      });
  }
  return out;
};
