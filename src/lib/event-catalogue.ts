import { z } from "@hono/zod-openapi";
import type { ZodType } from "zod";

/**
 * The payload (`data`) of every event type, as emitted (docs/events.md). Objects are loose: an
 * emitter may add fields, and automation metadata (causedByRuleId, automationDepth) rides along.
 * Automation rule conditions may only name fields declared here.
 */
const id = z.string();
const nullableId = z.string().nullable();
const sentiment = z.enum(["positive", "neutral", "negative"]).nullable();
const channel = z.enum(["email", "sms", "whatsapp"]);

const review = z.looseObject({
  reviewId: id,
  locationId: id,
  siteType: z.string(),
  rating: z.number().nullable(),
  sentiment,
  topics: z.array(z.string()),
});

const response = z.looseObject({
  responseId: id,
  reviewId: id,
  status: z.enum(["submitted", "approved", "published"]),
});

const solicitation = z.looseObject({
  solicitationId: id,
  locationId: id,
  contactId: id,
  campaignId: nullableId,
  channel,
  status: z.enum(["PENDING", "SENT", "DELIVERED", "FAILED", "BLOCKED", "BOUNCED"]),
  blockedReason: z.string().nullable().optional(),
});

export const EVENT_PAYLOADS = {
  "review.created": review,
  "review.negative": review,
  "review.updated": review.extend({
    previous: z.looseObject({ rating: z.number().nullable(), sentiment }),
  }),
  "response.submitted": response,
  "response.approved": response,
  "response.published": response,
  "feedback.submitted": z.looseObject({
    feedbackId: id,
    locationId: id,
    solicitationId: nullableId,
    contactId: nullableId,
    rating: z.number().nullable(),
    comment: z.string().nullable(),
    callbackRequested: z.boolean(),
  }),
  "solicitation.created": solicitation,
  "solicitation.blocked": solicitation,
  "solicitation.sent": solicitation,
  "solicitation.delivered": solicitation,
  "solicitation.bounced": solicitation,
  "solicitation.failed": solicitation,
  "solicitation.clicked": solicitation,
  "solicitation.converted": solicitation.extend({ reviewId: nullableId }),
  "inbox.assigned": z.looseObject({
    inboxItemId: id,
    type: z.enum(["review", "feedback"]),
    reviewId: nullableId,
    feedbackId: nullableId,
    locationId: nullableId,
    assignedToUserId: id,
  }),
  "inbox.overdue": z.looseObject({
    inboxItemId: id,
    reviewId: nullableId,
    locationId: nullableId,
    ruleId: id,
    escalateToRole: z.string().nullable(),
    reason: z.string(),
  }),
  "contact.suppressed": z.looseObject({
    contactId: id,
    suppressedAt: z.string(),
    reason: z.string().nullable(),
  }),
  "campaign.sent": z.looseObject({
    campaignId: id,
    locationId: nullableId,
    total: z.number(),
    queued: z.number(),
    blocked: z.number(),
    failed: z.number(),
  }),
  "experiment.completed": z.looseObject({
    experimentId: id,
    campaignId: id,
    winnerVariantId: nullableId,
  }),
} satisfies Record<string, ZodType>;

/** The catalogue of event types (the keys above, in order); webhooks and automation rules subscribe to these names. */
export type EventType = keyof typeof EVENT_PAYLOADS;
export const EVENT_TYPES = Object.keys(EVENT_PAYLOADS) as [EventType, ...EventType[]];
