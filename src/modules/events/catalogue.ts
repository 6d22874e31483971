import { z } from "@hono/zod-openapi";
import type { ZodType } from "zod";
import { EVENT_TYPES, type EventType } from "../../lib/events";

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
} satisfies Record<EventType, ZodType>;

/** The synthetic event POST /v1/webhooks/{id}/test sends; it is not on the EVENTS queue. */
export const WEBHOOK_TEST_EVENT = "webhook.test";

export const isEventType = (t: string): t is EventType => (EVENT_TYPES as readonly string[]).includes(t);

export type FieldKind = { type: "string" | "number" | "boolean"; nullable: boolean; options?: string[] } | { type: "array"; nullable: boolean; of: "string" | "number" };

type Def = { type: string; innerType?: ZodType; element?: ZodType; entries?: Record<string, string>; shape?: Record<string, ZodType> };
const defOf = (s: ZodType) => (s as unknown as { def: Def }).def;

function kindOf(schema: ZodType): FieldKind | "object" | null {
  let s = schema;
  let nullable = false;
  while (["nullable", "optional"].includes(defOf(s).type)) {
    nullable = true;
    s = defOf(s).innerType!;
  }
  const d = defOf(s);
  switch (d.type) {
    case "string":
    case "number":
    case "boolean":
      return { type: d.type, nullable };
    case "enum":
      return { type: "string", nullable, options: Object.values(d.entries!) };
    case "array": {
      const el = defOf(d.element!).type;
      return el === "number" ? { type: "array", nullable, of: "number" } : { type: "array", nullable, of: "string" };
    }
    case "object":
      return "object";
    default:
      return null;
  }
}

/** Dotted field paths of an event type's payload (nested objects flattened) and their kinds. */
export function payloadFields(type: EventType): Map<string, FieldKind> {
  const out = new Map<string, FieldKind>();
  const walk = (schema: ZodType, prefix: string) => {
    const shape = (schema as unknown as { shape: Record<string, ZodType> }).shape;
    for (const [key, child] of Object.entries(shape)) {
      const k = kindOf(child);
      if (k === "object") walk(child, `${prefix}${key}.`);
      else if (k) out.set(`${prefix}${key}`, k);
    }
  };
  walk(EVENT_PAYLOADS[type], "");
  return out;
}
