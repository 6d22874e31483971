import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { alertSends, inboxItems, outboxMessages, reviews } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { db, type World } from "../helpers/seed";

/** A review written straight to D1 (no review.created event), arriving at `createdAt`. */
export async function seedReviewAt(
  tenantId: string,
  locationId: string,
  createdAt: string,
  o: {
    rating?: number | null;
    text?: string | null;
    siteType?: string;
    escalatedAt?: string;
    status?: "new" | "responded";
  } = {},
) {
  const review = {
    id: newId(),
    tenantId,
    locationId,
    siteType: o.siteType ?? "google",
    rating: o.rating === undefined ? 4 : o.rating,
    text: o.text === undefined ? "Fine visit" : o.text,
    authorName: "Dana Reyes",
    sentiment: "positive" as const,
    sentimentScore: 0.5,
    topics: [],
    status: o.status ?? "new",
    isFirstParty: false,
    isPublic: true,
    occurredAt: createdAt,
    createdAt,
    updatedAt: createdAt,
  };
  const item = {
    id: newId(),
    tenantId,
    type: "review" as const,
    reviewId: review.id,
    feedbackId: null,
    locationId,
    status: "new" as const,
    assignedToUserId: null,
    tags: [] as string[],
    escalatedAt: o.escalatedAt ?? null,
    escalationReason: o.escalatedAt ? "SLA rule Fast lane: no response within 4 h" : null,
    createdAt,
    updatedAt: createdAt,
  };
  await db().batch([
    db()
      .insert(reviews)
      .values(review as never),
    db().insert(inboxItems).values(item),
  ]);
  return review;
}

export async function subscribe(w: World, as: Parameters<World["as"]>[0], body: Record<string, unknown>) {
  const res = await w.as(as).post("/v1/alert-subscriptions", body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; nextDigestAt: string | null; timeZone: string; [k: string]: any };
}

export const emailsTo = (to: string) => db().select().from(outboxMessages).where(eq(outboxMessages.to, to));
export const sendsOf = (subscriptionId: string) =>
  db().select().from(alertSends).where(eq(alertSends.subscriptionId, subscriptionId));

/** The token in an email's List-Unsubscribe header. */
export const unsubscribeToken = (headers: Record<string, string>) =>
  /\/alerts\/unsubscribe\/([^>]+)>/.exec(headers["List-Unsubscribe"] ?? "")![1]!;
