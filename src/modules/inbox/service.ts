import { and, asc, count, eq, gte, inArray, lte, not, or, type SQL, sql } from "drizzle-orm";
import { feedbackSubmissions, type InboxChannel, type InboxStatus, inboxItems, inboxNotes } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { toFeedback } from "../feedback/schemas";
import { listResponsesForReview } from "../reviews/responses.service";
import { getReview } from "../reviews/service";
import { pastDueReviews } from "../reviews/sla.service";
import { type InboxRow, toInboxItem, toNote } from "./schemas";

export type InboxItemType = InboxRow["type"];

export interface InboxListFilters extends PageQuery {
  locationId?: string;
  status?: InboxStatus;
  type?: InboxItemType;
  assignedToUserId?: string;
  channel?: InboxChannel;
  ratingMin?: number;
  ratingMax?: number;
  pastSla?: boolean;
}

/** ratingMin..ratingMax (inclusive) on the item's rating; one value when both are the same. */
function ratingCondition(q: InboxListFilters): SQL | undefined {
  if (q.ratingMin !== undefined && q.ratingMin === q.ratingMax) return eq(inboxItems.rating, q.ratingMin);
  return and(
    q.ratingMin === undefined ? undefined : gte(inboxItems.rating, q.ratingMin),
    q.ratingMax === undefined ? undefined : lte(inboxItems.rating, q.ratingMax),
  );
}

/**
 * Items past their SLA: review items whose review is past due (reviews/sla.service.ts pastDueReviews,
 * the reviews of GET /v1/responses/overdue). The item arrives with its review, so its own created_at
 * bounds the page's index range. `false` is every other item (feedback items have no SLA).
 */
async function slaCondition(
  ctx: Pick<ServiceContext, "db" | "tenantId">,
  pastSla: boolean | undefined,
): Promise<SQL | undefined> {
  if (pastSla === undefined) return undefined;
  const due = await pastDueReviews(ctx);
  const past = due
    ? and(
        eq(inboxItems.type, "review"),
        lte(inboxItems.createdAt, due.arrivedBy),
        inArray(inboxItems.reviewId, due.ids),
      )!
    : sql`0`;
  return pastSla ? past : not(past);
}

/** The list's filters as one condition (test/inbox/query-plans.test.ts reads its plans). */
export async function inboxListWhere(ctx: Pick<ServiceContext, "db" | "tenantId">, q: InboxListFilters) {
  return and(
    eq(inboxItems.tenantId, ctx.tenantId),
    q.locationId ? eq(inboxItems.locationId, q.locationId) : undefined,
    q.status ? eq(inboxItems.status, q.status) : undefined,
    q.type ? eq(inboxItems.type, q.type) : undefined,
    q.assignedToUserId ? eq(inboxItems.assignedToUserId, q.assignedToUserId) : undefined,
    q.channel ? eq(inboxItems.channel, q.channel) : undefined,
    ratingCondition(q),
    await slaCondition(ctx, q.pastSla),
  );
}

/**
 * Reviews and feedback in one keyset-paged list, newest first by the item's arrival, with the
 * common item shape. Every filter has its own (tenant_id, filter, created_at, id) index, but for a
 * rating range and pastSla, which ride the (tenant_id, created_at, id) range (docs/inbox.md).
 * Used by GET /v1/inbox and the MCP tool inbox.list.
 */
export async function listInboxItems(ctx: ServiceContext, q: InboxListFilters) {
  const where = await inboxListWhere(ctx, q);
  return keysetPage(ctx.db, {
    query: q,
    sort: [inboxItems.createdAt, inboxItems.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(inboxItems)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(inboxItems).where(where),
    key: (r) => [r.createdAt, r.id],
    map: toInboxItem,
  });
}

/**
 * The item by its own id; with a type, also by the review id or feedback id it tracks. A type that
 * does not match the item is a 404, like another tenant's item.
 */
export async function findInboxRow(ctx: ServiceContext, id: string, type?: InboxItemType): Promise<InboxRow> {
  const bySource =
    type === "review" ? eq(inboxItems.reviewId, id) : type === "feedback" ? eq(inboxItems.feedbackId, id) : undefined;
  const row = await ctx.db
    .select()
    .from(inboxItems)
    .where(
      and(
        eq(inboxItems.tenantId, ctx.tenantId),
        or(eq(inboxItems.id, id), bySource),
        type ? eq(inboxItems.type, type) : undefined,
      ),
    )
    .limit(1)
    .get();
  if (!row) throw notFound("Inbox item");
  return row;
}

/** One item with its notes and tags, and the review with its responses or the feedback submission. */
export async function getInboxItem(ctx: ServiceContext, id: string, type?: InboxItemType) {
  const row = await findInboxRow(ctx, id, type);
  const notes = await ctx.db
    .select()
    .from(inboxNotes)
    .where(and(eq(inboxNotes.tenantId, ctx.tenantId), eq(inboxNotes.inboxItemId, row.id)))
    .orderBy(asc(inboxNotes.createdAt), asc(inboxNotes.id));
  let review = null;
  let responses: Awaited<ReturnType<typeof listResponsesForReview>> = [];
  let feedback = null;
  if (row.type === "review" && row.reviewId) {
    [review, responses] = await Promise.all([getReview(ctx, row.reviewId), listResponsesForReview(ctx, row.reviewId)]);
  } else if (row.feedbackId) {
    const f = await ctx.db
      .select()
      .from(feedbackSubmissions)
      .where(and(eq(feedbackSubmissions.id, row.feedbackId), eq(feedbackSubmissions.tenantId, ctx.tenantId)))
      .get();
    feedback = f ? toFeedback(f) : null;
  }
  return { ...toInboxItem(row), notes: notes.map(toNote), review, responses, feedback };
}
