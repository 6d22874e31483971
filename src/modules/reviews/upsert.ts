import { and, eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { type InboxChannel, inboxItems, type ReviewStatus, reviews } from "../../db/schema";
import { hooks } from "../../hooks";
import type { PendingEvent } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { eventStatement } from "../../lib/events";
import { excerptOf } from "../../lib/excerpt";
import { newId } from "../../lib/ids";
import { inJson } from "../../lib/sql";
import { detectLanguage } from "./analysis/language";
import { analyseSentiment } from "./analysis/sentiment";
import { extractTopics, normaliseTopics } from "./analysis/topics";
import type { ReviewRow } from "./schemas";

/** A review as it arrives, from POST /v1/reviews/ingest or a site sync. */
export interface ReviewInput {
  locationId: string;
  siteType: string;
  solicitationId?: string | null;
  externalReviewId?: string | null;
  rating?: number | null;
  ratingMax?: number | null;
  text?: string | null;
  authorName?: string | null;
  authorExternalId?: string | null;
  language?: string | null;
  isFirstParty?: boolean;
  isPublic?: boolean;
  topics?: string[];
  externalUrl?: string | null;
  publishedAt?: string | null;
  /** the owner's reply the site already shows: the review counts as responded */
  replyText?: string | null;
  /** a site's thumbs up/down where it gives no stars (Facebook) */
  recommendation?: "positive" | "negative" | null;
}

export interface PreparedReview {
  row: ReviewRow;
  created: boolean;
  changed: boolean;
  statements: BatchItem<"sqlite">[];
  events: PendingEvent[];
}

/** Fields whose change makes a re-ingest a review.updated. */
const CONTENT = [
  "rating",
  "ratingMax",
  "text",
  "authorName",
  "language",
  "sentiment",
  "status",
  "isPublic",
  "publishedAt",
  "externalReplyText",
  "solicitationId",
] as const;

function analysed(input: ReviewInput) {
  const text = input.text?.trim() || null;
  const language = input.language ?? detectLanguage(text);
  let { sentiment, score } = analyseSentiment({ rating: input.rating, text, language });
  if (input.rating == null && input.recommendation && (sentiment === null || sentiment === "neutral")) {
    sentiment = input.recommendation;
    score = input.recommendation === "positive" ? 0.5 : -0.5;
  }
  const topics = input.topics ? normaliseTopics(input.topics) : extractTopics(text);
  return { text, language, sentiment, sentimentScore: score, topics };
}

const iso = (s: string | null | undefined) => (s ? new Date(s).toISOString() : null);

/**
 * The statements and events that store one review: a new review also gets its inbox item, the
 * solicitation conversion hook and review.created (+ review.negative); a changed one gets
 * review.updated (+ review.negative when it turned negative). An unchanged re-ingest is a no-op.
 */
export async function prepareReview(
  ctx: ServiceContext,
  input: ReviewInput,
  existing: ReviewRow | undefined,
  now: string,
): Promise<PreparedReview> {
  const a = analysed(input);
  const publishedAt = iso(input.publishedAt) ?? existing?.publishedAt ?? null;
  const alreadyReplied = Boolean(input.replyText?.trim());
  const status: ReviewStatus = alreadyReplied || existing?.status === "responded" ? "responded" : "new";
  const base = {
    locationId: input.locationId,
    siteType: input.siteType,
    solicitationId: input.solicitationId ?? existing?.solicitationId ?? null,
    externalReviewId: input.externalReviewId ?? null,
    rating: input.rating ?? null,
    ratingMax: input.ratingMax ?? null,
    text: a.text,
    authorName: input.authorName ?? null,
    authorExternalId: input.authorExternalId ?? null,
    language: a.language,
    sentiment: a.sentiment,
    sentimentScore: a.sentimentScore,
    topics: a.topics,
    status,
    isFirstParty: input.isFirstParty ?? input.siteType === "first_party",
    isPublic: input.isPublic ?? true,
    externalUrl: input.externalUrl ?? existing?.externalUrl ?? null,
    externalReplyText: input.replyText?.trim() || existing?.externalReplyText || null,
    publishedAt,
  };
  const eventData = (row: ReviewRow) => ({
    reviewId: row.id,
    locationId: row.locationId,
    siteType: row.siteType,
    rating: row.rating,
    sentiment: row.sentiment,
    topics: row.topics,
  });

  if (!existing) {
    const row: ReviewRow = {
      ...base,
      id: newId(),
      tenantId: ctx.tenantId,
      occurredAt: publishedAt ?? now,
      createdAt: now,
      updatedAt: now,
    };
    const statements: BatchItem<"sqlite">[] = [
      ctx.db.insert(reviews).values(row),
      ctx.db.insert(inboxItems).values({
        id: newId(),
        tenantId: ctx.tenantId,
        type: "review",
        reviewId: row.id,
        feedbackId: null,
        locationId: row.locationId,
        channel: row.siteType as InboxChannel,
        status: status === "responded" ? "responded" : "new",
        assignedToUserId: null,
        tags: [],
        escalatedAt: null,
        escalationReason: null,
        escalatedBy: null,
        rating: row.rating,
        excerpt: excerptOf(row.text),
        sentiment: row.sentiment,
        createdAt: now,
        updatedAt: now,
      }),
    ];
    const conversion = row.solicitationId
      ? await hooks().convertSolicitation(ctx, {
          solicitationId: row.solicitationId,
          reviewId: row.id,
          occurredAt: row.occurredAt,
        })
      : { statements: [], events: [] };
    statements.push(...conversion.statements);
    const events = [eventStatement(ctx, "review.created", eventData(row)), ...conversion.events];
    if (row.sentiment === "negative") events.push(eventStatement(ctx, "review.negative", eventData(row)));
    return { row, created: true, changed: true, statements, events };
  }

  const row: ReviewRow = { ...existing, ...base, occurredAt: publishedAt ?? existing.createdAt, updatedAt: now };
  const changed =
    CONTENT.some((k) => row[k] !== existing[k]) || JSON.stringify(row.topics) !== JSON.stringify(existing.topics);
  if (!changed) return { row: existing, created: false, changed: false, statements: [], events: [] };
  const { id, tenantId, createdAt, ...set } = row;
  const statements: BatchItem<"sqlite">[] = [
    ctx.db
      .update(reviews)
      .set(set)
      .where(and(eq(reviews.id, id), eq(reviews.tenantId, tenantId))),
  ];
  const becameResponded = status === "responded" && existing.status !== "responded";
  statements.push(
    ctx.db
      .update(inboxItems)
      .set({
        rating: row.rating,
        excerpt: excerptOf(row.text),
        sentiment: row.sentiment,
        ...(becameResponded ? { status: "responded" as const } : {}),
        updatedAt: now,
      })
      .where(and(eq(inboxItems.reviewId, id), eq(inboxItems.tenantId, tenantId))),
  );
  const events = [
    eventStatement(ctx, "review.updated", {
      ...eventData(row),
      previous: { rating: existing.rating, sentiment: existing.sentiment },
    }),
  ];
  if (row.sentiment === "negative" && existing.sentiment !== "negative")
    events.push(eventStatement(ctx, "review.negative", eventData(row)));
  return { row, created: false, changed: true, statements, events };
}

/** The stored reviews of a site with these external ids, by external id. */
export async function findByExternalIds(
  ctx: ServiceContext,
  siteType: string,
  externalIds: string[],
): Promise<Map<string, ReviewRow>> {
  const found = new Map<string, ReviewRow>();
  if (!externalIds.length) return found;
  // any number of ids in one bound parameter (src/lib/sql.ts)
  const rows = await ctx.db
    .select()
    .from(reviews)
    .where(
      and(
        eq(reviews.tenantId, ctx.tenantId),
        eq(reviews.siteType, siteType),
        inJson(reviews.externalReviewId, externalIds),
      ),
    );
  for (const r of rows) found.set(r.externalReviewId!, r);
  return found;
}
