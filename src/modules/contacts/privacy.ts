import { and, eq, isNull, sql } from "drizzle-orm";
import { contacts } from "../../db/schema";
import { hooks } from "../../hooks";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { forbidden } from "../../lib/errors";
import { eventStatement } from "../../lib/events";
import { inJson } from "../../lib/sql";
import { nowIso } from "../../lib/time";
import { getComplianceConfig } from "../compliance/service";
import { clearFinishedJobInputs } from "../jobs/retention";
import { auditView, type ContactRow, toContact } from "./schemas";
import { findContactRow } from "./service";
import { assertMove } from "./state";

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
        email: null,
        phone: null,
        firstName: null,
        lastName: null,
        locale: null,
        timezone: null,
        externalIds: {},
        sourceMetadata: {},
        nameKey: null,
        nameKeyReversed: null,
        lastActivityAt: null,
        isSuppressed: true,
        suppressedAt: sql`coalesce(${contacts.suppressedAt}, ${now})`,
        suppressionReason: reason,
        anonymizedAt: now,
        updatedAt: now,
      })
      .where(and(eq(contacts.tenantId, ctx.tenantId), isNull(contacts.anonymizedAt), inJson(contacts.id, contactIds))),
    ...hooks().personalData.flatMap((step) => step.erase(ctx, contactIds)),
  ];
}

export const anonymized = (c: ContactRow, now: string, reason: AnonymizeReason): ContactRow => ({
  ...c,
  email: null,
  phone: null,
  firstName: null,
  lastName: null,
  locale: null,
  timezone: null,
  externalIds: {},
  sourceMetadata: {},
  nameKey: null,
  nameKeyReversed: null,
  lastActivityAt: null,
  isSuppressed: true,
  suppressedAt: c.suppressedAt ?? now,
  suppressionReason: reason,
  anonymizedAt: now,
  updatedAt: now,
});

/** GET /v1/contacts/{id}/export: everything held about the contact, machine-readable. */
export async function exportContact(ctx: ServiceContext, id: string) {
  const contact = await findContactRow(ctx, id);
  if (!(await getComplianceConfig(ctx)).allowDataExport)
    throw forbidden("Data export is disabled in this tenant's compliance settings", "export_disabled");
  const records = Object.fromEntries(
    await Promise.all(
      // each kind's rows are plain JSON objects (ContactExportSchema's records)
      hooks().personalData.map(
        async (s) => [s.key, (await s.exportRows(ctx, id)) as Record<string, unknown>[]] as const,
      ),
    ),
  );
  const exportedAt = nowIso();
  await commit(ctx, [
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "contact.exported",
      resourceType: "contact",
      resourceId: id,
      metadata: { kinds: Object.keys(records) },
    }),
  ]);
  return { exportedAt, contact: toContact(contact), records };
}

/** DELETE /v1/contacts/{id}: erasure. The contact stays as an anonymous, suppressed row. */
export async function eraseContact(ctx: ServiceContext, id: string) {
  const before = await findContactRow(ctx, id);
  if (!(await getComplianceConfig(ctx)).allowDataDeletion)
    throw forbidden("Data deletion is disabled in this tenant's compliance settings", "deletion_disabled");
  assertMove(before, "erase");
  const now = nowIso();
  const after = anonymized(before, now, "erased");
  await commit(
    ctx,
    [
      ...anonymizeStatements(ctx, [id], now, "erased"),
      // an imported CSV kept by a finished job may name the person (docs/automation.md, "Retention of finished jobs")
      clearFinishedJobInputs(ctx),
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "contact.erased",
        resourceType: "contact",
        resourceId: id,
        previousState: auditView(before),
        nextState: auditView(after),
      }),
    ],
    before.isSuppressed
      ? []
      : [eventStatement(ctx, "contact.suppressed", { contactId: id, suppressedAt: now, reason: "erased" })],
  );
  return toContact(after);
}
