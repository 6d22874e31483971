import { and, asc, eq, isNull, lt, sql } from "drizzle-orm";
import { feedbackSubmissions, inboxItems, tenants } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { groupMap } from "../../lib/collections";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { jsonList } from "../../lib/sql";
import { nowIso } from "../../lib/time";
import { type PersonalDataStep, retentionCutoff } from "../compliance/personal-data";
import { toFeedback } from "./schemas";

/** Wipes the free text (comment, follow-up, answers) of these submissions and their inbox excerpts; scores stay for statistics. */
function wipe(ctx: Pick<ServiceContext, "db" | "tenantId">, feedbackIds: ReturnType<typeof sql>, now: string) {
  return [
    ctx.db
      .update(inboxItems)
      .set({ excerpt: null, updatedAt: now })
      .where(and(eq(inboxItems.tenantId, ctx.tenantId), sql`${inboxItems.feedbackId} in ${feedbackIds}`)),
    ctx.db
      .update(feedbackSubmissions)
      .set({ text: null, followUpText: null, surveyResponses: {}, anonymizedAt: now, updatedAt: now })
      .where(and(eq(feedbackSubmissions.tenantId, ctx.tenantId), sql`${feedbackSubmissions.id} in ${feedbackIds}`)),
  ];
}

/**
 * Feedback a contact gave through their links: exported with the contact (GDPR art. 15/20);
 * erasure and retention wipe the text and answers (the ratings stay, anonymous, for survey statistics).
 */
export const feedbackPersonalData: PersonalDataStep = {
  key: "feedback",
  exportRows: async (ctx, contactId) => {
    const rows = await ctx.db
      .select()
      .from(feedbackSubmissions)
      .where(and(eq(feedbackSubmissions.tenantId, ctx.tenantId), eq(feedbackSubmissions.contactId, contactId)))
      .orderBy(asc(feedbackSubmissions.createdAt));
    return rows.map(toFeedback);
  },
  erase: (ctx, contactIds) =>
    wipe(
      ctx,
      sql`(select ${feedbackSubmissions.id} from ${feedbackSubmissions} where ${feedbackSubmissions.tenantId} = ${ctx.tenantId} and ${feedbackSubmissions.contactId} in ${jsonList(contactIds)})`,
      nowIso(),
    ),
  expire: async (system, now, limit) => {
    const due = await system.db
      .select({ id: feedbackSubmissions.id, tenantId: feedbackSubmissions.tenantId })
      .from(tenants)
      .crossJoin(feedbackSubmissions)
      .where(
        and(
          eq(feedbackSubmissions.tenantId, tenants.id),
          isNull(feedbackSubmissions.anonymizedAt),
          lt(feedbackSubmissions.createdAt, retentionCutoff(tenants.id, now)),
        ),
      )
      .limit(limit);
    const byTenant = groupMap(
      due,
      (d) => d.tenantId,
      (d) => d.id,
    );
    for (const [tenantId, ids] of byTenant) {
      const ctx = { ...system, tenantId };
      await commit(ctx, [
        ...wipe(ctx, jsonList(ids), now),
        auditStatement(ctx, {
          tenantId,
          action: "feedback.retention_anonymized",
          resourceType: "tenant",
          resourceId: tenantId,
          nextState: { feedbackIds: ids, sweptAt: now },
        }),
      ]);
    }
    return due.length;
  },
};
