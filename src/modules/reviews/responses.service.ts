import { and, asc, eq } from "drizzle-orm";
import { locations, type ResponseStatus, reviewResponses, reviews } from "../../db/schema";
import { hooks } from "../../hooks";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { type EventType, eventStatement } from "../../lib/events";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { assertTenantMember } from "../users/membership";
import { interventionStatements } from "./auto-replies/intervention";
import { nextStatus, type ResponseAction } from "./response-states";
import {
  type CreateResponseInput,
  type ResponseRow,
  toAnsweredReview,
  toResponse,
  type UpdateResponseInput,
} from "./responses.schemas";
import { findReviewRow } from "./service";

const actorUserId = (ctx: ServiceContext) => (ctx.actor.type === "user" ? ctx.actor.userId : null);

export async function findResponseRow(ctx: ServiceContext, id: string): Promise<ResponseRow> {
  const row = await ctx.db
    .select()
    .from(reviewResponses)
    .where(and(eq(reviewResponses.id, id), eq(reviewResponses.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Review response");
  return row;
}

/** An assignee must hold a role on this tenant; anyone else (or another tenant's user) is a 400. */
async function assertAssignable(ctx: ServiceContext, userId: string | null | undefined) {
  if (userId) await assertTenantMember(ctx, userId, { path: "assignedToUserId", message: "Not a user of this tenant" });
}

export async function listResponsesForReview(ctx: ServiceContext, reviewId: string) {
  await findReviewRow(ctx, reviewId);
  const rows = await ctx.db
    .select()
    .from(reviewResponses)
    .where(and(eq(reviewResponses.tenantId, ctx.tenantId), eq(reviewResponses.reviewId, reviewId)))
    .orderBy(asc(reviewResponses.createdAt), asc(reviewResponses.id));
  return rows.map(toResponse);
}

export async function createResponse(ctx: ServiceContext, reviewId: string, input: CreateResponseInput) {
  const review = await findReviewRow(ctx, reviewId);
  await assertAssignable(ctx, input.assignedToUserId);
  const now = nowIso();
  const text = input.useAi ? await hooks().draftReply(ctx, review) : input.text!;
  const row: ResponseRow = {
    id: newId(),
    tenantId: ctx.tenantId,
    reviewId,
    text,
    status: "draft",
    assignedToUserId: input.assignedToUserId ?? null,
    rejectionReason: null,
    aiGenerated: Boolean(input.useAi),
    createdByUserId: actorUserId(ctx),
    decidedByUserId: null,
    submittedAt: null,
    decidedAt: null,
    publishedAt: null,
    publishedVia: null,
    publishedByUserId: null,
    publishedUrl: null,
    providerState: null,
    providerPolicyViolation: null,
    providerCheckedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await commit(ctx, [
    ctx.db.insert(reviewResponses).values(row),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "response.created",
      resourceType: "review_response",
      resourceId: row.id,
      nextState: row,
    }),
  ]);
  return toResponse(row);
}

type QueueQuery = { limit: number; assignedToUserId?: string; status?: "submitted" | "approved" | "rejected" };

/** Replies in one status (submitted: the approval queue), optionally one assignee's, the longest waiting first. */
const queueWhere = (ctx: ServiceContext, q: QueueQuery) =>
  and(
    eq(reviewResponses.tenantId, ctx.tenantId),
    eq(reviewResponses.status, q.status ?? "submitted"),
    q.assignedToUserId ? eq(reviewResponses.assignedToUserId, q.assignedToUserId) : undefined,
  );

export async function listApprovalQueue(ctx: ServiceContext, q: QueueQuery) {
  const rows = await ctx.db
    .select()
    .from(reviewResponses)
    .where(queueWhere(ctx, q))
    .orderBy(asc(reviewResponses.updatedAt), asc(reviewResponses.id))
    .limit(q.limit);
  return rows.map(toResponse);
}

/**
 * The approval queue with the review each reply answers and its location's name, in one read: what an
 * approver needs to decide (approval.list-pending for a caller who may read reviews).
 */
export async function listApprovalQueueWithReviews(ctx: ServiceContext, q: QueueQuery) {
  const rows = await ctx.db
    .select({ reply: reviewResponses, review: reviews, locationName: locations.name })
    .from(reviewResponses)
    .innerJoin(reviews, and(eq(reviews.id, reviewResponses.reviewId), eq(reviews.tenantId, ctx.tenantId)))
    .leftJoin(locations, and(eq(locations.id, reviews.locationId), eq(locations.tenantId, ctx.tenantId)))
    .where(queueWhere(ctx, q))
    .orderBy(asc(reviewResponses.updatedAt), asc(reviewResponses.id))
    .limit(q.limit);
  return rows.map((r) => ({ ...toResponse(r.reply), review: toAnsweredReview(r.review, r.locationName) }));
}

const AUDIT_ACTIONS: Record<ResponseAction, string> = {
  edit: "response.updated",
  submit: "response.submitted",
  approve: "response.approved",
  reject: "response.rejected",
  publish: "response.published",
  await_moderation: "response.moderation_pending",
  moderation_pass: "response.published",
  moderation_reject: "response.moderation_rejected",
};
const EVENTS: Partial<Record<ResponseAction, EventType>> = {
  submit: "response.submitted",
  approve: "response.approved",
  publish: "response.published",
  moderation_pass: "response.published",
};

/**
 * Applies one state-table move and writes it with its audit row (and event) in one batch. The
 * update is conditional on the status read, so two concurrent moves cannot both succeed. A person's
 * edit, reject or publish also cancels a scheduled auto reply in that batch (auto-replies/intervention.ts).
 */
export async function moveResponse(
  ctx: ServiceContext,
  before: ResponseRow,
  action: ResponseAction,
  changes: Partial<ResponseRow> = {},
  extra: Parameters<typeof commit>[1] = [],
) {
  const status: ResponseStatus = nextStatus(before.status, action);
  const after: ResponseRow = { ...before, ...changes, status, updatedAt: nowIso() };
  const { id, tenantId, createdAt, ...set } = after;
  const type = EVENTS[action];
  const cancelsAutoReply = await interventionStatements(ctx, id, action);
  await commit(
    ctx,
    [
      ctx.db
        .update(reviewResponses)
        .set(set)
        .where(
          and(
            eq(reviewResponses.id, id),
            eq(reviewResponses.tenantId, tenantId),
            eq(reviewResponses.status, before.status),
          ),
        ),
      ...extra,
      ...cancelsAutoReply,
      auditStatement(ctx, {
        tenantId,
        action: AUDIT_ACTIONS[action],
        resourceType: "review_response",
        resourceId: id,
        previousState: before,
        nextState: after,
      }),
    ],
    type ? [eventStatement(ctx, type, { responseId: id, reviewId: after.reviewId, status })] : [],
  );
  return toResponse(after);
}

export async function updateResponse(ctx: ServiceContext, id: string, input: UpdateResponseInput) {
  const before = await findResponseRow(ctx, id);
  nextStatus(before.status, "edit");
  if (input.assignedToUserId !== undefined) await assertAssignable(ctx, input.assignedToUserId);
  return moveResponse(ctx, before, "edit", {
    text: input.text,
    ...(input.assignedToUserId !== undefined ? { assignedToUserId: input.assignedToUserId } : {}),
    // an edited text is a person's text, and a rejected draft starts over (a new text for the site's moderators too)
    aiGenerated: false,
    rejectionReason: null,
    providerState: null,
    providerPolicyViolation: null,
  });
}

export async function submitResponse(ctx: ServiceContext, id: string) {
  return moveResponse(ctx, await findResponseRow(ctx, id), "submit", { submittedAt: nowIso() });
}

/** Approves a submitted reply; with `text`, the approver's edit replaces the reply's text in the same move. */
export async function approveResponse(ctx: ServiceContext, id: string, input: { text?: string } = {}) {
  return moveResponse(ctx, await findResponseRow(ctx, id), "approve", {
    decidedAt: nowIso(),
    decidedByUserId: actorUserId(ctx),
    // an edited text is a person's text (and a new text for the site's moderators)
    ...(input.text !== undefined ? { text: input.text, aiGenerated: false } : {}),
  });
}

export async function rejectResponse(ctx: ServiceContext, id: string, input: { reason?: string }) {
  return moveResponse(ctx, await findResponseRow(ctx, id), "reject", {
    decidedAt: nowIso(),
    decidedByUserId: actorUserId(ctx),
    rejectionReason: input.reason ?? null,
  });
}
