import { and, count, eq, gte, isNotNull, lt, type SQL, sql } from "drizzle-orm";
import { BLOCKED_REASONS, type BlockedReason, contacts, solicitations } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { REFUSALS_DEFAULT_DAYS, type SolicitationListFilters, type SolicitationRow, toSolicitation } from "./schemas";

/*
 * Solicitations (the review requests sent, or refused by the policy) as keyset pages, newest first: the
 * one list behind GET /v1/solicitations, a contact's message history and the policy's refusals
 * (docs/sending.md, "Lists of solicitations"). Each equality filter has a (tenant_id, filter,
 * created_at, id) index; the time range is a range on it.
 */

/**
 * A solicitation with its contact's name and addresses (`SolicitationWithContact`): select these over
 * `solicitations LEFT JOIN contacts` and map the rows with toSolicitationWithContact (this list and a
 * campaign's, campaigns/send.ts).
 */
export const WITH_CONTACT = {
  s: solicitations,
  // aliased: D1 returns rows keyed by column name, so joined columns must not share a name
  email: sql<string | null>`${contacts.email}`.as("contact_email"),
  phone: sql<string | null>`${contacts.phone}`.as("contact_phone"),
  firstName: sql<string | null>`${contacts.firstName}`.as("contact_first_name"),
  lastName: sql<string | null>`${contacts.lastName}`.as("contact_last_name"),
};

export const toSolicitationWithContact = (r: {
  s: SolicitationRow;
  email: string | null;
  phone: string | null;
  firstName: string | null;
  lastName: string | null;
}) => ({
  ...toSolicitation(r.s),
  contact: { id: r.s.contactId, email: r.email, firstName: r.firstName, lastName: r.lastName, phone: r.phone },
});

/** An instant given with any offset, as the stored UTC text it compares with. */
const utc = (instant: string) => new Date(instant).toISOString();

/** The list's filters as one condition (test/solicitations/query-plans.test.ts reads its plans). */
export function solicitationListWhere(tenantId: string, q: SolicitationListFilters): SQL {
  return and(
    eq(solicitations.tenantId, tenantId),
    q.status ? eq(solicitations.status, q.status) : undefined,
    q.channel ? eq(solicitations.channel, q.channel) : undefined,
    q.campaignId ? eq(solicitations.campaignId, q.campaignId) : undefined,
    q.contactId ? eq(solicitations.contactId, q.contactId) : undefined,
    q.locationId ? eq(solicitations.locationId, q.locationId) : undefined,
    q.blockedReason ? eq(solicitations.blockedReason, q.blockedReason) : undefined,
    q.from ? gte(solicitations.createdAt, utc(q.from)) : undefined,
    q.to ? lt(solicitations.createdAt, utc(q.to)) : undefined,
  )!;
}

/** One keyset page of the tenant's solicitations under the filters, each with its contact (a primary-key join). */
export async function listSolicitations(ctx: ServiceContext, q: SolicitationListFilters & PageQuery) {
  const where = solicitationListWhere(ctx.tenantId, q);
  return keysetPage(ctx.db, {
    query: q,
    sort: [solicitations.createdAt, solicitations.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select(WITH_CONTACT)
        .from(solicitations)
        .leftJoin(contacts, eq(contacts.id, solicitations.contactId))
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(solicitations).where(where),
    key: (r) => [r.s.createdAt, r.s.id],
    map: toSolicitationWithContact,
  });
}

/**
 * The sending policy's recent refusals (GET /v1/compliance/refusals): the BLOCKED solicitations of the
 * range, newest first, and how many per reason under the same channel and location filters (one
 * grouped count on the partial blocked_reason index, read in parallel with the page).
 */
export async function listRefusals(
  ctx: ServiceContext,
  q: PageQuery & {
    blockedReason?: BlockedReason;
    channel?: SolicitationListFilters["channel"];
    locationId?: string;
    from?: string;
    to?: string;
  },
  now = new Date(),
) {
  const from = utc(q.from ?? new Date(now.getTime() - REFUSALS_DEFAULT_DAYS * 86_400_000).toISOString());
  const to = q.to ? utc(q.to) : null;
  const range = { channel: q.channel, locationId: q.locationId, from, to: to ?? undefined };
  const [page, counted] = await Promise.all([
    listSolicitations(ctx, { ...q, ...range, status: "BLOCKED" }),
    ctx.db
      .select({ reason: solicitations.blockedReason, n: count() })
      .from(solicitations)
      .where(and(solicitationListWhere(ctx.tenantId, range), isNotNull(solicitations.blockedReason)))
      .groupBy(solicitations.blockedReason),
  ]);
  const byReason = Object.fromEntries(BLOCKED_REASONS.map((r) => [r, 0])) as Record<BlockedReason, number>;
  for (const row of counted) if (row.reason) byReason[row.reason] = row.n;
  return { ...page, range: { from, to }, byReason };
}
