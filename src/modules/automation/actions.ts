import { and, eq } from "drizzle-orm";
import { inboxItems, type RuleAction } from "../../db/schema";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { type EventPlace, eventReview, renderTokens, type TokenSource } from "../../lib/event-context";
import type { EventEnvelope } from "../../lib/events";
import { sendTransactionalEmail } from "../../providers/messaging/transactional";
import { applyAssignment, tagWrites } from "../inbox/actions";
import { deliveryBody } from "../outgoing-webhooks/delivery";
import { openSecret } from "../outgoing-webhooks/service";
import { type FetchFn, postSigned } from "../outgoing-webhooks/transport";
import { createRecommendation } from "../recommendations/service";
import { createResponse } from "../reviews/responses.service";
import { createSolicitations } from "../solicitations/create";
import { tenantMemberEmails, tenantMembers } from "../users/membership";
import type { AutomationCause } from "./cause";
import type { ActionInput, RuleRow } from "./schemas";

export interface ActionContext {
  ctx: ServiceContext;
  rule: RuleRow;
  event: EventEnvelope;
  place: EventPlace | null;
  cause: AutomationCause;
  fetch?: FetchFn;
  tokens: () => Promise<TokenSource>;
}

type Handler<T extends ActionInput["type"]> = (
  ax: ActionContext,
  config: Extract<ActionInput, { type: T }>["config"],
) => Promise<Record<string, unknown>>;

/** Fields every event caused by an action carries, so the engine can refuse loops. */
export const causeFields = (c: AutomationCause) => ({
  causedByRuleId: c.ruleId,
  automationChain: c.chain,
  automationDepth: c.depth,
});

const CLOSED = new Set(["responded", "resolved", "ignored"]);

async function inboxItemFor(ax: ActionContext) {
  const d = ax.event.data;
  const { ctx } = ax;
  const by =
    typeof d.inboxItemId === "string"
      ? eq(inboxItems.id, d.inboxItemId)
      : typeof d.reviewId === "string"
        ? eq(inboxItems.reviewId, d.reviewId)
        : typeof d.feedbackId === "string"
          ? eq(inboxItems.feedbackId, d.feedbackId)
          : undefined;
  const item = by
    ? await ctx.db
        .select()
        .from(inboxItems)
        .where(and(eq(inboxItems.tenantId, ctx.tenantId), by))
        .get()
    : undefined;
  if (!item) throw new Error(`${ax.event.type} names no inbox item`);
  return item;
}

const sendWebhook: Handler<"send_webhook"> = async (ax, config) => {
  if (!ax.rule.signingSecretEncrypted) throw new Error("the rule has no signing secret");
  const body = JSON.parse(deliveryBody(ax.event)) as Record<string, unknown>;
  const result = await postSigned(
    ax.ctx.env,
    {
      url: config.url,
      secret: await openSecret(ax.ctx.env, { secretEncrypted: ax.rule.signingSecretEncrypted }),
      messageId: `msg_${ax.rule.id}_${ax.event.id}`,
      body: JSON.stringify({ ...body, ruleId: ax.rule.id }),
    },
    ax.fetch,
  );
  if (!result.ok) throw new Error(result.error ?? "delivery failed");
  return { responseStatus: result.responseStatus, latencyMs: result.latencyMs };
};

const assignInbox: Handler<"assign_inbox"> = async (ax, config) => {
  const { ctx } = ax;
  const item = await inboxItemFor(ax);
  if (!(await tenantMembers(ctx.control, ctx.tenantId, [config.userId])).has(config.userId))
    throw new Error("the assignee is no longer a user of this tenant");
  if (CLOSED.has(item.status)) return { inboxItemId: item.id, changed: false, reason: `item is ${item.status}` };
  // the inbox's own rule (in progress stays in progress); the rule and the event that caused it in the audit row
  const changed = await applyAssignment(ctx, item, config.userId, {
    metadata: { ruleId: ax.rule.id, eventId: ax.event.id },
    event: causeFields(ax.cause),
  });
  return changed
    ? { inboxItemId: item.id, changed: true, assignedToUserId: config.userId }
    : { inboxItemId: item.id, changed: false, reason: "already assigned" };
};

const addTags: Handler<"add_tags"> = async (ax, config) => {
  const { ctx } = ax;
  const item = await inboxItemFor(ax);
  // the inbox's own rule (trimmed, one spelling per tag, at most 20): the existing tags first, then the rule's
  const { tags, writes } = tagWrites(ctx, item, [...item.tags, ...config.tags], {
    ruleId: ax.rule.id,
    eventId: ax.event.id,
  });
  if (!writes.length) return { inboxItemId: item.id, tags, changed: false };
  await commit(ctx, writes);
  return { inboxItemId: item.id, tags, changed: true };
};

const createResponseDraft: Handler<"create_response_draft"> = async (ax, config) => {
  const review = await eventReview(ax.ctx, ax.event);
  if (!review) throw new Error(`${ax.event.type} names no review`);
  const response =
    config.mode === "ai"
      ? await createResponse(ax.ctx, review.id, { useAi: true })
      : await createResponse(ax.ctx, review.id, { text: renderTokens(config.text!, await ax.tokens()) });
  return { responseId: response.id, reviewId: review.id, aiGenerated: response.aiGenerated };
};

const sendSolicitation: Handler<"send_solicitation"> = async (ax, config) => {
  const contactId = ax.event.data.contactId;
  if (typeof contactId !== "string") throw new Error(`${ax.event.type} names no contact`);
  if (!ax.place) throw new Error(`${ax.event.type} has no location to send from`);
  // the same entry point as every other send path: the policy engine decides, and the rule chain
  // rides along in metadata so the solicitation's own events never retrigger this rule
  const { outcomes } = await createSolicitations(ax.ctx, [
    {
      contactId,
      locationId: ax.place.locationId,
      channel: config.channel,
      campaignId: config.campaignId,
      templateId: config.templateId,
      metadata: { automation: causeFields(ax.cause) },
    },
  ]);
  const outcome = outcomes[0]!;
  if (!outcome.ok) throw new Error(`${outcome.issue.path}: ${outcome.issue.message}`);
  return {
    contactId,
    solicitationId: outcome.solicitation.id,
    status: outcome.solicitation.status,
    blockedReason: outcome.solicitation.blockedReason,
  };
};

const notifyEmail: Handler<"notify_email"> = async (ax, config) => {
  const { ctx } = ax;
  const to = new Set(config.to ?? []);
  if (config.toRole) {
    for (const email of await tenantMemberEmails(ctx.control, ctx.tenantId, [config.toRole])) to.add(email);
  }
  if (!to.size) throw new Error("no recipients");
  const tokens = await ax.tokens();
  const subject = renderTokens(config.subject, tokens);
  const text = renderTokens(config.text, tokens);
  for (const address of to)
    await sendTransactionalEmail(ctx.env, { tenantId: ctx.tenantId, to: address, subject, text });
  return { recipients: to.size };
};

const createRecommendationAction: Handler<"create_recommendation"> = async (ax, config) => {
  const tokens = await ax.tokens();
  const title = renderTokens(config.title, tokens);
  const { recommendation, created } = await createRecommendation(ax.ctx, {
    scopeType: ax.place ? "location" : "tenant",
    scopeId: ax.place?.locationId ?? ax.ctx.tenantId,
    type: config.type,
    title,
    description: config.description ? renderTokens(config.description, tokens) : title,
    priority: config.priority,
    // a rule the tenant wrote fired: the recommendation is certain, and applying it is the tenant's call
    confidence: 1,
    riskLevel: "low",
    actionPayload: config.actionPayload,
    evidence: { source: "automation_rule", ruleId: ax.rule.id, eventId: ax.event.id },
  });
  return { recommendationId: recommendation.id, created };
};

const HANDLERS: { [T in ActionInput["type"]]: Handler<T> } = {
  send_webhook: sendWebhook,
  assign_inbox: assignInbox,
  add_tags: addTags,
  create_response_draft: createResponseDraft,
  send_solicitation: sendSolicitation,
  notify_email: notifyEmail,
  create_recommendation: createRecommendationAction,
};

export async function runAction(ax: ActionContext, action: RuleAction): Promise<Record<string, unknown>> {
  const handler = HANDLERS[action.type as ActionInput["type"]] as Handler<ActionInput["type"]> | undefined;
  if (!handler) throw new Error(`unknown action type ${action.type}`);
  return handler(ax, action.config as never);
}
