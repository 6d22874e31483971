import { and, asc, eq, lt, sql } from "drizzle-orm";
import { outboxMessages, sendRecords, solicitations, tenants } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { groupMap } from "../../lib/collections";
import { commit } from "../../lib/commit";
import { inJson } from "../../lib/sql";
import { type PersonalDataStep, retentionCutoff } from "../compliance/personal-data";
import { toSolicitation } from "./schemas";

const ofContacts = (tenantId: string, contactIds: string[]) =>
  sql`(select ${solicitations.id} from ${solicitations} where ${solicitations.tenantId} = ${tenantId} and ${inJson(solicitations.contactId, contactIds)})`;

/**
 * Solicitations in data-subject export, erasure and retention. Erasure keeps the rows (statuses and
 * counts stay true) but drops their free-form metadata and the stored copies of the messages (the
 * outbox holds the address and the rendered text). Retention deletes solicitations older than the
 * tenant's retentionDays, with their send records and outbox copies.
 */
export const solicitationPersonalData: PersonalDataStep = {
  key: "solicitations",
  exportRows: async (ctx, contactId) =>
    (
      await ctx.db
        .select()
        .from(solicitations)
        .where(and(eq(solicitations.tenantId, ctx.tenantId), eq(solicitations.contactId, contactId)))
        .orderBy(asc(solicitations.createdAt), asc(solicitations.id))
    ).map(toSolicitation),
  erase: (ctx, contactIds) => [
    ctx.db
      .delete(outboxMessages)
      .where(sql`${outboxMessages.solicitationId} in ${ofContacts(ctx.tenantId, contactIds)}`),
    ctx.db
      .update(solicitations)
      .set({ metadata: {} })
      .where(and(eq(solicitations.tenantId, ctx.tenantId), inJson(solicitations.contactId, contactIds))),
  ],
  expire: async (system, now, limit) => {
    // CROSS JOIN keeps tenants the outer loop: one range seek on (tenant_id, created_at) per tenant
    const due = await system.db
      .select({ id: solicitations.id, tenantId: solicitations.tenantId })
      .from(tenants)
      .crossJoin(solicitations)
      .where(and(eq(solicitations.tenantId, tenants.id), lt(solicitations.createdAt, retentionCutoff(tenants.id, now))))
      .limit(limit);
    const byTenant = groupMap(
      due,
      (d) => d.tenantId,
      (d) => d.id,
    );
    for (const [tenantId, ids] of byTenant) {
      const ctx = { ...system, tenantId };
      await commit(ctx, [
        ctx.db.delete(sendRecords).where(inJson(sendRecords.solicitationId, ids)),
        ctx.db.delete(outboxMessages).where(inJson(outboxMessages.solicitationId, ids)),
        ctx.db.delete(solicitations).where(and(eq(solicitations.tenantId, tenantId), inJson(solicitations.id, ids))),
        auditStatement(ctx, {
          tenantId,
          action: "solicitation.retention_deleted",
          resourceType: "tenant",
          resourceId: tenantId,
          nextState: { solicitationIds: ids, sweptAt: now },
        }),
      ]);
    }
    return due.length;
  },
};
