import { and, eq, inArray } from "drizzle-orm";
import { type InboxStatus, inboxItems, type ReviewStatus, reviewResponses, reviews } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { nowIso } from "../../lib/time";
import type { ExternalReview, ReplyModeration } from "../../providers/review-sites";
import { type ResponseRow, toResponse } from "./responses.schemas";
import { moveResponse } from "./responses.service";
import type { ReviewRow } from "./schemas";

/** The review and its inbox item, in the batch of the response's move. */
function reviewMarks(ctx: ServiceContext, review: ReviewRow, review_: ReviewStatus, inbox: InboxStatus, now: string) {
  return [
    ctx.db
      .update(reviews)
      .set({ status: review_, updatedAt: now })
      .where(and(eq(reviews.id, review.id), eq(reviews.tenantId, ctx.tenantId))),
    ctx.db
      .update(inboxItems)
      .set({ status: inbox, updatedAt: now })
      .where(and(eq(inboxItems.reviewId, review.id), eq(inboxItems.tenantId, ctx.tenantId))),
  ];
}

/**
 * approved -> published, with who did it, audited (response.published) with the review and its inbox
 * item marked responded in the same batch: the same for an API publish and for a reply a person
 * posted by hand on the site (via "manual", the sites without a reply API, as every competitor offers).
 */
export function markPublished(
  ctx: ServiceContext,
  response: ResponseRow,
  review: ReviewRow,
  o: { via: string; url: string | null; extra?: Partial<ResponseRow>; action?: "publish" | "moderation_pass" },
) {
  const now = nowIso();
  const by = ctx.actor.type === "user" ? ctx.actor.userId : null;
  return moveResponse(
    ctx,
    response,
    o.action ?? "publish",
    { publishedAt: now, publishedVia: o.via, publishedByUserId: by, publishedUrl: o.url, ...o.extra },
    reviewMarks(ctx, review, "responded", "responded", now),
  );
}

/**
 * A moderating site's verdict on the reply we sent (Google reviewReplyState; from the reply call, a
 * sync page or the moderation sweep) moves the response through the state table
 * (response-states.ts): PENDING keeps it approved and marks the inbox item in progress; ACTIVE
 * publishes it; REJECTED rejects it with the policy as the reason and puts the review back to new
 * in the inbox. The same verdict again only records when it was read.
 */
export async function applyModeration(
  ctx: ServiceContext,
  response: ResponseRow,
  review: ReviewRow,
  m: ReplyModeration,
  via: string,
) {
  const now = nowIso();
  const seen = { providerState: m.state, providerPolicyViolation: m.policyViolation, providerCheckedAt: now };
  const by = ctx.actor.type === "user" ? ctx.actor.userId : null;
  if (m.state === "pending" && response.status === "approved" && response.providerState !== "pending") {
    return moveResponse(
      ctx,
      response,
      "await_moderation",
      { ...seen, publishedVia: via, publishedByUserId: by },
      reviewMarks(ctx, review, "new", "in_progress", now),
    );
  }
  if (m.state === "active" && response.status === "approved") {
    // a person's publish that Google let through at once: they published it; a later verdict: whoever sent it
    // held before (pending): the site's move, not a person's publish (which cancels a scheduled auto reply)
    const action = response.providerState === "pending" ? "moderation_pass" : "publish";
    return markPublished(ctx, response, review, {
      via,
      url: null,
      action,
      extra: { ...seen, publishedByUserId: by ?? response.publishedByUserId },
    });
  }
  if (m.state === "rejected" && (response.status === "approved" || response.status === "published")) {
    const reason = `${siteName(via)} rejected the reply${m.policyViolation ? ` (policy: ${m.policyViolation})` : ""}; edit it and send it again`;
    return moveResponse(
      ctx,
      response,
      "moderation_reject",
      { ...seen, rejectionReason: reason, publishedAt: null, decidedAt: now },
      reviewMarks(ctx, review, "new", "new", now),
    );
  }
  // nothing moves: the same verdict again (or one for a response that moved on); remember when it was read
  await ctx.db
    .update(reviewResponses)
    .set({ providerCheckedAt: now })
    .where(and(eq(reviewResponses.id, response.id), eq(reviewResponses.tenantId, ctx.tenantId)));
  return toResponse({ ...response, providerCheckedAt: now });
}

const siteName = (via: string) => (via === "google" ? "Google" : via);

/**
 * A sync page shows the site's verdict on replies we sent (Google reviewReply.reviewReplyState):
 * the responses waiting for it (pending) or live (active, Google may still take it down) move.
 */
export async function observeModeration(
  ctx: ServiceContext,
  site: string,
  page: ExternalReview[],
  existing: Map<string, ReviewRow>,
) {
  const seen = new Map<string, { review: ReviewRow; m: ReplyModeration }>();
  for (const r of page) {
    const review = existing.get(r.externalReviewId);
    if (review && r.replyModeration) seen.set(review.id, { review, m: r.replyModeration });
  }
  if (!seen.size) return 0;
  const waiting = await ctx.db
    .select()
    .from(reviewResponses)
    .where(
      and(
        eq(reviewResponses.tenantId, ctx.tenantId),
        inArray(reviewResponses.reviewId, [...seen.keys()]),
        inArray(reviewResponses.providerState, ["pending", "active"]),
      ),
    );
  let moved = 0;
  for (const response of waiting) {
    const { review, m } = seen.get(response.reviewId)!;
    if (m.state === response.providerState) continue;
    await applyModeration(ctx, response, review, m, site);
    moved++;
  }
  return moved;
}
