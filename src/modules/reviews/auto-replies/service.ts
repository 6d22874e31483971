import { and, count, eq } from "drizzle-orm";
import type { AutoReplyStatus } from "../../../db/schema";
import { autoReplies } from "../../../db/schema";
import { auditStatement } from "../../../lib/audit";
import { commit } from "../../../lib/commit";
import type { ServiceContext } from "../../../lib/context";
import { notFound } from "../../../lib/errors";
import { keysetPage, type PageQuery } from "../../../lib/pagination";
import { nowIso } from "../../../lib/time";
import { type AutoReplyRow, toAutoReply } from "./schemas";
import { nextAutoReplyStatus } from "./states";

export async function listAutoReplies(
  ctx: ServiceContext,
  q: PageQuery & { status?: AutoReplyStatus; reviewId?: string },
) {
  const where = and(
    eq(autoReplies.tenantId, ctx.tenantId),
    q.status ? eq(autoReplies.status, q.status) : undefined,
    q.reviewId ? eq(autoReplies.reviewId, q.reviewId) : undefined,
  );
  return keysetPage(ctx.db, {
    query: q,
    sort: [autoReplies.createdAt, autoReplies.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(autoReplies)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(autoReplies).where(where),
    key: (r) => [r.createdAt, r.id],
    map: toAutoReply,
  });
}

async function findAutoReplyRow(ctx: ServiceContext, id: string): Promise<AutoReplyRow> {
  const row = await ctx.db
    .select()
    .from(autoReplies)
    .where(and(eq(autoReplies.id, id), eq(autoReplies.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Auto reply");
  return row;
}

export const getAutoReply = async (ctx: ServiceContext, id: string) => toAutoReply(await findAutoReplyRow(ctx, id));

/** A person stops a scheduled publication; the response stays submitted, in the approval queue. */
export async function cancelAutoReply(ctx: ServiceContext, id: string) {
  const before = await findAutoReplyRow(ctx, id);
  const after: AutoReplyRow = {
    ...before,
    status: nextAutoReplyStatus(before.status, "cancel"),
    cancelReason: "cancel",
    updatedAt: nowIso(),
  };
  await commit(ctx, [
    ctx.db
      .update(autoReplies)
      .set({ status: after.status, cancelReason: after.cancelReason, updatedAt: after.updatedAt })
      .where(
        and(eq(autoReplies.id, id), eq(autoReplies.tenantId, ctx.tenantId), eq(autoReplies.status, before.status)),
      ),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "auto_reply.cancelled",
      resourceType: "auto_reply",
      resourceId: id,
      previousState: before,
      nextState: after,
    }),
  ]);
  return toAutoReply(after);
}
