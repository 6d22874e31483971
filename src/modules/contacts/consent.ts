import { and, asc, eq, sql } from "drizzle-orm";
import { type ConsentChannel, type ConsentStatus, consentRecords, contacts } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { newId } from "../../lib/ids";
import { inJson } from "../../lib/sql";
import { nowIso } from "../../lib/time";
import type { PersonalDataStep } from "../compliance/personal-data";
import { type ConsentRow, type GrantConsentInput, toConsentRecord } from "./schemas";
import { findContactRow } from "./service";
import { assertMove } from "./state";

/** Consent history of a contact, oldest first. */
export async function listConsent(ctx: ServiceContext, contactId: string) {
  await findContactRow(ctx, contactId);
  const rows = await ctx.db
    .select()
    .from(consentRecords)
    .where(and(eq(consentRecords.tenantId, ctx.tenantId), eq(consentRecords.contactId, contactId)))
    .orderBy(asc(consentRecords.createdAt), asc(consentRecords.channel), asc(consentRecords.seq));
  return rows.map(toConsentRecord);
}

export type NewRecord = Pick<ConsentRow, "channel" | "status" | "source" | "ipAddress" | "userAgent">;

/**
 * The insert of one consent record (and the contact's activity mark), for a batch. Other domains
 * use it too (an inbound STOP revokes consent from the delivery webhooks).
 */
export function consentRecordStatements(ctx: Pick<ServiceContext, "db" | "tenantId">, contactId: string, r: NewRecord) {
  const row: Omit<ConsentRow, "seq"> = { ...r, id: newId(), tenantId: ctx.tenantId, contactId, createdAt: nowIso() };
  // seq is computed inside the insert, so two changes to one channel can never share a position
  const seq = sql`(select coalesce(max(${consentRecords.seq}), 0) + 1 from ${consentRecords}
    where ${consentRecords.contactId} = ${contactId} and ${consentRecords.channel} = ${r.channel})`;
  return {
    row,
    statements: [
      ctx.db.insert(consentRecords).values({ ...row, seq }),
      // a consent change is contact activity: retention counts from it
      ctx.db
        .update(contacts)
        .set({ lastActivityAt: row.createdAt })
        .where(and(eq(contacts.id, contactId), eq(contacts.tenantId, ctx.tenantId))),
    ],
  };
}

async function record(ctx: ServiceContext, contactId: string, r: NewRecord) {
  assertMove(await findContactRow(ctx, contactId), "recordConsent");
  const { row, statements } = consentRecordStatements(ctx, contactId, r);
  await commit(ctx, [
    ...statements,
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: `consent.${r.status}`,
      resourceType: "consent_record",
      resourceId: row.id,
      nextState: { contactId, channel: r.channel, status: r.status },
    }),
  ]);
  return toConsentRecord({ ...row, seq: 0 });
}

export const grantConsent = (ctx: ServiceContext, contactId: string, input: GrantConsentInput) =>
  record(ctx, contactId, {
    channel: input.channel,
    status: "granted",
    source: input.source,
    ipAddress: input.ipAddress ?? null,
    userAgent: input.userAgent ?? null,
  });

/** A revoke is recorded even without an earlier grant: an explicit opt-out is worth keeping. */
export const revokeConsent = (ctx: ServiceContext, contactId: string, channel: ConsentChannel) =>
  record(ctx, contactId, { channel, status: "revoked", source: "api", ipAddress: null, userAgent: null });

export type ConsentState = Partial<Record<ConsentChannel, { status: ConsentStatus; at: string }>>;

/**
 * The current consent per channel (the latest record) of each given contact, for the sending
 * policy. Contacts without any record map to {}.
 */
export async function currentConsent(ctx: ServiceContext, contactIds: string[]): Promise<Map<string, ConsentState>> {
  const result = new Map<string, ConsentState>(contactIds.map((id) => [id, {}]));
  if (!contactIds.length) return result;
  const rows = await ctx.db
    .select({
      contactId: consentRecords.contactId,
      channel: consentRecords.channel,
      status: consentRecords.status,
      at: consentRecords.createdAt,
    })
    .from(consentRecords)
    .where(and(eq(consentRecords.tenantId, ctx.tenantId), inJson(consentRecords.contactId, contactIds)))
    .orderBy(asc(consentRecords.seq));
  for (const r of rows) result.get(r.contactId)![r.channel] = { status: r.status, at: r.at };
  return result;
}

/** Consent history in exports; on erasure the proof stays (channel, status, time) but who and where go. */
export const consentPersonalData: PersonalDataStep = {
  key: "consentRecords",
  exportRows: async (ctx, contactId) => listConsent(ctx, contactId),
  erase: (ctx, contactIds) => [
    ctx.db
      .update(consentRecords)
      .set({ source: "redacted", ipAddress: null, userAgent: null })
      .where(and(eq(consentRecords.tenantId, ctx.tenantId), inJson(consentRecords.contactId, contactIds))),
  ],
};
