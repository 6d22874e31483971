import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { complianceConfigs, contacts } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { forbidden } from "../../lib/errors";
import { eventStatement } from "../../lib/events";
import { nowIso } from "../../lib/time";
import { COMPLIANCE_DEFAULTS } from "../compliance/schemas";
import { getComplianceConfig } from "../compliance/service";
import { feedbackPersonalData } from "../feedback/privacy";
import { solicitationPersonalData } from "../solicitations/privacy";
import { consentPersonalData } from "./consent";
import { auditView, toContact, type ContactRow } from "./schemas";
import { findContactRow } from "./service";
import { assertMove } from "./state";

/**
 * One kind of personal data linked to a contact. Data-subject export (GDPR art. 15/20), erasure
 * (art. 17) and the retention sweep walk PERSONAL_DATA, so a domain that stores data about a
 * contact (solicitations, feedback, reviews) adds its step to the list and is covered by all three.
 */
export interface PersonalDataStep {
  /** the key of this kind in the export's `records` */
  key: string;
  /** the rows linked to the contact, as the export shows them */
  exportRows: (ctx: ServiceContext, contactId: string) => Promise<object[]>;
  /** statements that delete or anonymise what is linked to these contacts; run in the erasure's batch */
  erase: (ctx: ServiceContext, contactIds: string[]) => BatchItem<"sqlite">[];
  /**
   * Retention, for data with its own age (solicitations, feedback): delete at most `limit` rows,
   * across tenants, older than `retentionCutoff(row's tenant, now)`, audited; returns how many went.
   */
  expire?: (system: Omit<ServiceContext, "tenantId">, now: string, limit: number) => Promise<number>;
}

export const PERSONAL_DATA: PersonalDataStep[] = [consentPersonalData, solicitationPersonalData, feedbackPersonalData];

/** SQL: the instant before which a tenant's data is past its retentionDays (defaults apply when unsaved). */
export const retentionCutoff = (tenantId: SQLiteColumn, now: string): SQL =>
  sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${now}, '-' || coalesce(
    (select ${complianceConfigs.retentionDays} from ${complianceConfigs} where ${complianceConfigs.tenantId} = ${tenantId}),
    ${COMPLIANCE_DEFAULTS.retentionDays}) || ' days')`;

export type AnonymizeReason = "erased" | "retention";

/**
 * Wipes the contacts' personal fields and suppresses them for good (they can never be matched,
 * messaged or unsuppressed again), plus every registered step's erasure. The rows stay, so counts do.
 */
export function anonymizeStatements(ctx: ServiceContext, contactIds: string[], now: string, reason: AnonymizeReason) {
  return [
    ctx.db
      .update(contacts)
      .set({
        email: null, phone: null, firstName: null, lastName: null, locale: null, timezone: null,
        externalIds: {}, sourceMetadata: {}, nameKey: null, nameKeyReversed: null, lastActivityAt: null,
        isSuppressed: true, suppressedAt: sql`coalesce(${contacts.suppressedAt}, ${now})`, suppressionReason: reason,
        anonymizedAt: now, updatedAt: now,
      })
      .where(
        and(
          eq(contacts.tenantId, ctx.tenantId),
          isNull(contacts.anonymizedAt),
          sql`${contacts.id} in (select value from json_each(${JSON.stringify(contactIds)}))`,
        ),
      ),
    ...PERSONAL_DATA.flatMap((step) => step.erase(ctx, contactIds)),
  ];
}

export const anonymized = (c: ContactRow, now: string, reason: AnonymizeReason): ContactRow => ({
  ...c,
  email: null, phone: null, firstName: null, lastName: null, locale: null, timezone: null,
  externalIds: {}, sourceMetadata: {}, nameKey: null, nameKeyReversed: null, lastActivityAt: null,
  isSuppressed: true, suppressedAt: c.suppressedAt ?? now, suppressionReason: reason, anonymizedAt: now, updatedAt: now,
});

/** GET /v1/contacts/{id}/export: everything held about the contact, machine-readable. */
export async function exportContact(ctx: ServiceContext, id: string) {
  const contact = await findContactRow(ctx, id);
  if (!(await getComplianceConfig(ctx)).allowDataExport) throw forbidden("Data export is disabled in this tenant's compliance settings");
  const records = Object.fromEntries(await Promise.all(PERSONAL_DATA.map(async (s) => [s.key, await s.exportRows(ctx, id)] as const)));
  const exportedAt = nowIso();
  await commit(ctx, [
    auditStatement(ctx, {
      tenantId: ctx.tenantId, action: "contact.exported", resourceType: "contact", resourceId: id,
      metadata: { kinds: Object.keys(records) },
    }),
  ]);
  return { exportedAt, contact: toContact(contact), records };
}

/** DELETE /v1/contacts/{id}: erasure. The contact stays as an anonymous, suppressed row. */
export async function eraseContact(ctx: ServiceContext, id: string) {
  const before = await findContactRow(ctx, id);
  if (!(await getComplianceConfig(ctx)).allowDataDeletion) throw forbidden("Data deletion is disabled in this tenant's compliance settings");
  assertMove(before, "erase");
  const now = nowIso();
  const after = anonymized(before, now, "erased");
  await commit(
    ctx,
    [
      ...anonymizeStatements(ctx, [id], now, "erased"),
      auditStatement(ctx, {
        tenantId: ctx.tenantId, action: "contact.erased", resourceType: "contact", resourceId: id,
        previousState: auditView(before), nextState: auditView(after),
      }),
    ],
    before.isSuppressed ? [] : [eventStatement(ctx, "contact.suppressed", { contactId: id, suppressedAt: now, reason: "erased" })],
  );
  return toContact(after);
}
