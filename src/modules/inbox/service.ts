import { and, asc, count, eq, or } from "drizzle-orm";
import { feedbackSubmissions, type InboxStatus, inboxItems, inboxNotes } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { toFeedback } from "../feedback/schemas";
import { listResponsesForReview } from "../reviews/responses.service";
import { getReview } from "../reviews/service";
import { type InboxRow, toInboxItem, toNote } from "./schemas";

export type InboxItemType = InboxRow["type"];

export interface InboxListFilters extends PageQuery {
  locationId?: string;
  status?: InboxStatus;
  type?: InboxItemType;
  assignedToUserId?: string;
}

/**
 * Reviews and feedback in one keyset-paged list, newest first by the item's arrival, with the
 * common item shape. Every filter has its own (tenant_id, filter, created_at, id) index.
 * Used by GET /v1/inbox and the MCP skill inbox.list.
 */
export async function listInboxItems(ctx: ServiceContext, q: InboxListFilters) {
  const where = and(
    eq(inboxItems.tenantId, ctx.tenantId),
    q.locationId ? eq(inboxItems.locationId, q.locationId) : undefined,
    q.status ? eq(inboxItems.status, q.status) : undefined,
    q.type ? eq(inboxItems.type, q.type) : undefined,
    q.assignedToUserId ? eq(inboxItems.assignedToUserId, q.assignedToUserId) : undefined,
  );
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
