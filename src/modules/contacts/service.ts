import { and, count, eq, gte, isNotNull, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { contactCounts, contacts } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { isUniqueViolation } from "../../lib/db-errors";
import { conflict, notFound, validationError } from "../../lib/errors";
import { eventStatement } from "../../lib/events";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { nowIso } from "../../lib/time";
import { foldText, phoneSearchPrefix, prefixRange } from "./normalize";
import { auditView, type ContactRow, toContact, type UpsertContactInput } from "./schemas";
import { assertMove } from "./state";
import { DIFFERENT_CONTACTS, planUpserts, preparePhone, upsertStatements } from "./upsert";

const startsWith = (column: SQLiteColumn, prefix: string) => {
  const [low, high] = prefixRange(prefix);
  return and(gte(column, low), lt(column, high))!;
};

/**
 * Prefix ranges on the four indexed search columns, each branch carrying its own tenant filter.
 * With no tenant filter outside the OR, the only index-backed plan left to SQLite is one range
 * per branch (MULTI-INDEX OR); a tenant filter outside would let it walk the tenant's whole
 * created_at index to skip the sort, which is a scan of every contact when matches are rare.
 */
export function searchCondition(tenantId: string, term: string): SQL {
  const branch = (column: SQLiteColumn, prefix: string) =>
    and(eq(contacts.tenantId, tenantId), startsWith(column, prefix))!;
  const branches = [branch(contacts.email, term.toLowerCase())];
  const phone = phoneSearchPrefix(term);
  if (phone) branches.push(branch(contacts.phone, phone));
  const folded = foldText(term);
  if (folded) branches.push(branch(contacts.nameKey, folded), branch(contacts.nameKeyReversed, folded));
  return or(...branches)!;
}

export interface ContactFilters {
  search?: string;
  isSuppressed?: boolean;
  hasEmail?: boolean;
  hasPhone?: boolean;
}

export async function listContacts(ctx: ServiceContext, q: PageQuery & ContactFilters) {
  const base = q.search ? searchCondition(ctx.tenantId, q.search) : eq(contacts.tenantId, ctx.tenantId);
  const narrowed = q.isSuppressed !== undefined || q.hasEmail !== undefined || q.hasPhone !== undefined;
  const where = and(
    base,
    q.isSuppressed === undefined ? undefined : eq(contacts.isSuppressed, q.isSuppressed),
    q.hasEmail === undefined ? undefined : q.hasEmail ? isNotNull(contacts.email) : isNull(contacts.email),
    q.hasPhone === undefined ? undefined : q.hasPhone ? isNotNull(contacts.phone) : isNull(contacts.phone),
  );
  return keysetPage(ctx.db, {
    query: q,
    sort: [contacts.createdAt, contacts.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(contacts)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count:
      q.search || narrowed
        ? ctx.db.select({ n: count() }).from(contacts).where(where)
        : ctx.db.select({ n: contactCounts.total }).from(contactCounts).where(eq(contactCounts.tenantId, ctx.tenantId)),
    key: (c) => [c.createdAt, c.id],
    map: toContact,
  });
}

export async function findContactRow(ctx: ServiceContext, id: string): Promise<ContactRow> {
  const row = await ctx.db
    .select()
    .from(contacts)
    .where(and(eq(contacts.id, id), eq(contacts.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Contact");
  return row;
}

export const getContact = async (ctx: ServiceContext, id: string) => toContact(await findContactRow(ctx, id));

const changedFields = (before: ContactRow | undefined, after: ContactRow) =>
  (["email", "phone", "firstName", "lastName", "locale", "timezone", "externalIds", "sourceMetadata"] as const).filter(
    (f) => JSON.stringify(before?.[f] ?? null) !== JSON.stringify(after[f]),
  );

/** POST /v1/contacts: match on email, else phone; create when neither matches. */
export async function upsertContact(
  ctx: ServiceContext,
  input: UpsertContactInput,
  retried = false,
): Promise<ReturnType<typeof toContact>> {
  const prepared = preparePhone(input);
  if ("message" in prepared) throw validationError([prepared]);
  const now = nowIso();
  const plan = await planUpserts(ctx, [prepared], now);
  const outcome = plan.outcomes[0]!;
  if ("error" in outcome) throw conflict(`The ${DIFFERENT_CONTACTS}`);
  const after = plan.rows[0]!;
  const before = plan.before.get(outcome.id);
  try {
    await commit(ctx, [
      ...upsertStatements(ctx, plan.rows),
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: outcome.created ? "contact.created" : "contact.updated",
        resourceType: "contact",
        resourceId: outcome.id,
        previousState: before ? auditView(before) : null,
        nextState: auditView(after),
        metadata: { changedFields: changedFields(before, after) },
      }),
    ]);
  } catch (e) {
    // someone else took this email or phone between the lookup and the write: match again, once
    if (isUniqueViolation(e) && !retried) return upsertContact(ctx, input, true);
    if (isUniqueViolation(e)) throw conflict("The email or phone was taken by a concurrent write; retry");
    throw e;
  }
  return toContact(after);
}

export async function suppressContact(ctx: ServiceContext, id: string, reason: string | undefined) {
  const before = await findContactRow(ctx, id);
  assertMove(before, "suppress");
  const now = nowIso();
  const after: ContactRow = {
    ...before,
    isSuppressed: true,
    suppressedAt: now,
    suppressionReason: reason ?? null,
    updatedAt: now,
  };
  await commit(
    ctx,
    [
      ctx.db
        .update(contacts)
        .set({ isSuppressed: true, suppressedAt: now, suppressionReason: after.suppressionReason, updatedAt: now })
        .where(and(eq(contacts.id, id), eq(contacts.tenantId, ctx.tenantId))),
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "contact.suppressed",
        resourceType: "contact",
        resourceId: id,
        previousState: auditView(before),
        nextState: { ...auditView(after), suppressionReason: after.suppressionReason },
      }),
    ],
    [eventStatement(ctx, "contact.suppressed", { contactId: id, suppressedAt: now, reason: after.suppressionReason })],
  );
  return toContact(after);
}

export async function unsuppressContact(ctx: ServiceContext, id: string) {
  const before = await findContactRow(ctx, id);
  assertMove(before, "unsuppress");
  const now = nowIso();
  const after: ContactRow = {
    ...before,
    isSuppressed: false,
    suppressedAt: null,
    suppressionReason: null,
    updatedAt: now,
  };
  await commit(ctx, [
    ctx.db
      .update(contacts)
      .set({ isSuppressed: false, suppressedAt: null, suppressionReason: null, updatedAt: now })
      .where(and(eq(contacts.id, id), eq(contacts.tenantId, ctx.tenantId), sql`${contacts.anonymizedAt} is null`)),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "contact.unsuppressed",
      resourceType: "contact",
      resourceId: id,
      previousState: { ...auditView(before), suppressionReason: before.suppressionReason },
      nextState: auditView(after),
    }),
  ]);
  return toContact(after);
}
