import { describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../src/lib/event-catalogue";
import { isEventType, payloadFields, WEBHOOK_TEST_EVENT } from "../../src/modules/events/catalogue";

// src/modules/events/catalogue.ts: what automation rule conditions may name (docs/events.md). A field
// a condition can use must come out of payloadFields with the kind the condition editor checks against.
describe("event catalogue", () => {
  it("knows the emitted event types and nothing else; the webhook test event is not one of them", () => {
    expect(isEventType("review.created")).toBe(true);
    expect(isEventType("solicitation.sent")).toBe(true);
    expect(isEventType("review.deleted")).toBe(false);
    expect(isEventType("")).toBe(false);
    expect(isEventType(WEBHOOK_TEST_EVENT)).toBe(false);
    expect(WEBHOOK_TEST_EVENT).toBe("webhook.test");
  });

  it("flattens nested payload objects into dotted paths with each field's kind, nullable and options", () => {
    const fields = Object.fromEntries(payloadFields("review.updated"));
    expect(fields).toEqual({
      reviewId: { type: "string", nullable: false },
      locationId: { type: "string", nullable: false },
      siteType: { type: "string", nullable: false },
      rating: { type: "number", nullable: true },
      sentiment: { type: "string", nullable: true, options: ["positive", "neutral", "negative"] },
      topics: { type: "array", nullable: false, of: "string" },
      "previous.rating": { type: "number", nullable: true },
      "previous.sentiment": { type: "string", nullable: true, options: ["positive", "neutral", "negative"] },
    });
  });

  it("treats an optional field as nullable and an enum as a string with its options", () => {
    const fields = payloadFields("solicitation.blocked");
    expect(fields.get("blockedReason")).toEqual({ type: "string", nullable: true });
    expect(fields.get("status")).toEqual({
      type: "string",
      nullable: false,
      options: ["PENDING", "SENT", "DELIVERED", "FAILED", "BLOCKED", "BOUNCED"],
    });
    expect(fields.get("channel")).toMatchObject({ options: ["email", "sms", "whatsapp"] });
  });

  it("describes a field of every event type (no payload is empty to conditions)", () => {
    for (const type of EVENT_TYPES) expect(payloadFields(type).size, type).toBeGreaterThan(0);
  });
});
