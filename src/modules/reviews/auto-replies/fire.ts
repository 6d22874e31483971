import { and, eq, isNull, or, sql } from "drizzle-orm";
import type { ShardDb } from "../../../db/client";
import { autoReplies, autoReplyRules, reviewResponses, reviews, tenants } from "../../../db/schema";
import type { Env } from "../../../env";
import { auditStatement } from "../../../lib/audit";
import { commit } from "../../../lib/commit";
import type { ServiceContext } from "../../../lib/context";
import { eventPlace, renderTokens } from "../../../lib/event-context";
import type { EventEnvelope } from "../../../lib/events";
import { newId } from "../../../lib/ids";
import { systemContext } from "../../../lib/system-context";
import { addSeconds, nowIso } from "../../../lib/time";
import { createResponse, submitResponse } from "../responses.service";
import { AUTO_REPLY_ACTOR } from "./intervention";
import { pickRule, reviewEligible } from "./matching";
import { autoPublishEnabled } from "./rules.service";
import type { AutoReplyRow, AutoReplyRuleRow } from "./schemas";
import { nextAutoReplyStatus } from "./states";

/** One read for the batch: the review.created events of tenants with an active rule. */
export async function selectAutoReplyEvents(events: EventEnvelope[], _env: Env, shard: ShardDb) {
  const candidates = events.filter((e) => e.type === "review.created");
  if (!candidates.length) return () => false;
  const tenantIds = [...new Set(candidates.map((e) => e.tenantId))];
  // a paused tenant acts read-only: nothing is drafted for it
  const rows = await shard
    .selectDistinct({ tenantId: autoReplyRules.tenantId })
    .from(autoReplyRules)
    .innerJoin(tenants, and(eq(tenants.id, autoReplyRules.tenantId), eq(tenants.isActive, true)))
    .where(
      and(
        eq(autoReplyRules.isActive, true),
        sql`${autoReplyRules.tenantId} in (select value from json_each(${JSON.stringify(tenantIds)}))`,
      ),
    );
  const armed = new Set(rows.map((r) => r.tenantId));
  return (e: EventEnvelope) => e.type === "review.created" && armed.has(e.tenantId);
}

async function draftText(
  ctx: ServiceContext,
  rule: AutoReplyRuleRow,
  review: typeof reviews.$inferSelect,
  event: EventEnvelope,
) {
  if (rule.source === "engine") return null;
  const text = renderTokens(rule.template ?? "", { event, place: await eventPlace(ctx, event), review }).trim();
  if (!text) throw new Error("the template rendered to empty text");
  return text;
}

/**
 * Answers a new review by the most specific matching rule: drafts the reply (template or engine),
 * submits it through the response state table, then queues it for approval or schedules its
 * publication. The auto_replies row (one per review) is claimed first, so a redelivered event
 * or a second consumer drafts nothing more. Everything is done and audited as system/auto-reply.
 */
export async function autoReplyToReview(
  env: Env,
  event: EventEnvelope,
  now = new Date(),
): Promise<AutoReplyRow | null> {
  const ctx = await systemContext(env, event.tenantId, AUTO_REPLY_ACTOR);
  const reviewId = typeof event.data.reviewId === "string" ? event.data.reviewId : null;
  if (!reviewId) return null;
  const review = await ctx.db
    .select()
    .from(reviews)
    .where(and(eq(reviews.id, reviewId), eq(reviews.tenantId, ctx.tenantId)))
    .get();
  if (!review || !reviewEligible(review, now)) return null;
  const rules = await ctx.db
    .select()
    .from(autoReplyRules)
    .where(
      and(
        eq(autoReplyRules.tenantId, ctx.tenantId),
        eq(autoReplyRules.isActive, true),
        or(isNull(autoReplyRules.locationId), eq(autoReplyRules.locationId, review.locationId)),
      ),
    );
  const rule = pickRule(rules, review);
  if (!rule) return null;
  // someone already answered here: leave it to them
  const answered = await ctx.db
    .select({ id: reviewResponses.id })
    .from(reviewResponses)
    .where(and(eq(reviewResponses.reviewId, review.id), eq(reviewResponses.tenantId, ctx.tenantId)))
    .get();
  if (answered) return null;

  const stamp = nowIso(now);
  const claim: AutoReplyRow = {
    id: newId(),
    tenantId: ctx.tenantId,
    ruleId: rule.id,
    reviewId: review.id,
    responseId: null,
    mode: rule.mode,
    status: "drafting",
    publishAt: null,
    attempts: 0,
    cancelReason: null,
    lastError: null,
    createdAt: stamp,
    updatedAt: stamp,
  };
  const claimed = await ctx.db.insert(autoReplies).values(claim).onConflictDoNothing().returning().get();
  if (!claimed) return null;

  let after: AutoReplyRow;
  try {
    const text = await draftText(ctx, rule, review, event);
    const draft = await createResponse(ctx, review.id, text === null ? { useAi: true } : { text });
    await submitResponse(ctx, draft.id);
    // the tenant may have withdrawn its opt-in since the rule was saved: then a person approves
    const publishes = rule.mode === "auto_publish" && rule.delayMinutes !== null && (await autoPublishEnabled(ctx));
    after = {
      ...claim,
      responseId: draft.id,
      mode: publishes ? "auto_publish" : "approval",
      status: nextAutoReplyStatus(claim.status, publishes ? "schedule" : "queue"),
      publishAt: publishes ? addSeconds(now, rule.delayMinutes! * 60).toISOString() : null,
      updatedAt: nowIso(),
    };
  } catch (err) {
    after = {
      ...claim,
      status: nextAutoReplyStatus(claim.status, "fail"),
      lastError: String(err instanceof Error ? err.message : err).slice(0, 500),
      updatedAt: nowIso(),
    };
  }
  const { id, tenantId, createdAt, ...set } = after;
  await commit(ctx, [
    ctx.db
      .update(autoReplies)
      .set(set)
      .where(and(eq(autoReplies.id, id), eq(autoReplies.status, "drafting"))),
    auditStatement(ctx, {
      tenantId,
      action: `auto_reply.${after.status}`,
      resourceType: "auto_reply",
      resourceId: id,
      nextState: after,
      metadata: { ruleId: rule.id, reviewId: review.id },
    }),
  ]);
  return after;
}
