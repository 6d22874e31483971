// Where an event happened and what it is about, for automation rules and auto-replies (both render {{tokens}}).
import { and, eq } from "drizzle-orm";
import { brands, inboxItems, locations, reviews, solicitations } from "../db/schema";
import type { ServiceContext } from "./context";
import type { EventEnvelope } from "./events";

/** The value at a dotted path of a JSON object (`review.rating`), or undefined. */
export function valueAt(data: Record<string, unknown>, path: string): unknown {
  let v: unknown = data;
  for (const key of path.split(".")) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

const str = (v: unknown) => (typeof v === "string" && v ? v : null);

export interface EventPlace {
  locationId: string;
  locationName: string;
  brandId: string;
  brandName: string;
}

/**
 * Where an event happened: data.locationId, else the location of the review, inbox item or
 * solicitation it names. Null for events without a place (contact.suppressed, experiment.completed).
 */
export async function eventPlace(ctx: ServiceContext, event: EventEnvelope): Promise<EventPlace | null> {
  const d = event.data;
  let locationId = str(d.locationId);
  const reviewId = str(d.reviewId);
  const inboxItemId = str(d.inboxItemId);
  const solicitationId = str(d.solicitationId);
  if (!locationId && reviewId) {
    locationId =
      (
        await ctx.db
          .select({ l: reviews.locationId })
          .from(reviews)
          .where(and(eq(reviews.id, reviewId), eq(reviews.tenantId, ctx.tenantId)))
          .get()
      )?.l ?? null;
  }
  if (!locationId && inboxItemId) {
    locationId =
      (
        await ctx.db
          .select({ l: inboxItems.locationId })
          .from(inboxItems)
          .where(and(eq(inboxItems.id, inboxItemId), eq(inboxItems.tenantId, ctx.tenantId)))
          .get()
      )?.l ?? null;
  }
  if (!locationId && solicitationId) {
    locationId =
      (
        await ctx.db
          .select({ l: solicitations.locationId })
          .from(solicitations)
          .where(and(eq(solicitations.id, solicitationId), eq(solicitations.tenantId, ctx.tenantId)))
          .get()
      )?.l ?? null;
  }
  if (!locationId) return null;
  const row = await ctx.db
    .select({ locationId: locations.id, locationName: locations.name, brandId: brands.id, brandName: brands.name })
    .from(locations)
    .innerJoin(brands, eq(brands.id, locations.brandId))
    .where(and(eq(locations.id, locationId), eq(locations.tenantId, ctx.tenantId)))
    .get();
  return row ?? null;
}

/** The review an event is about (directly or through its inbox item), for drafts and {{review.*}} tokens. */
export async function eventReview(ctx: ServiceContext, event: EventEnvelope) {
  let reviewId = str(event.data.reviewId);
  const inboxItemId = str(event.data.inboxItemId);
  if (!reviewId && inboxItemId) {
    reviewId =
      (
        await ctx.db
          .select({ r: inboxItems.reviewId })
          .from(inboxItems)
          .where(and(eq(inboxItems.id, inboxItemId), eq(inboxItems.tenantId, ctx.tenantId)))
          .get()
      )?.r ?? null;
  }
  if (!reviewId) return null;
  return (
    (await ctx.db
      .select()
      .from(reviews)
      .where(and(eq(reviews.id, reviewId), eq(reviews.tenantId, ctx.tenantId)))
      .get()) ?? null
  );
}

export interface TokenSource {
  event: EventEnvelope;
  place: EventPlace | null;
  review: Awaited<ReturnType<typeof eventReview>>;
}

/** Replaces {{path}} tokens; unknown tokens become empty text (documented in docs/automation.md). */
export function renderTokens(template: string, s: TokenSource): string {
  const scope = {
    event: { id: s.event.id, type: s.event.type, occurredAt: s.event.occurredAt },
    data: s.event.data,
    location: s.place ? { id: s.place.locationId, name: s.place.locationName } : {},
    brand: s.place ? { id: s.place.brandId, name: s.place.brandName } : {},
    review: s.review
      ? {
          id: s.review.id,
          authorName: s.review.authorName,
          rating: s.review.rating,
          text: s.review.text,
          siteType: s.review.siteType,
        }
      : {},
  };
  return template.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_, path: string) => {
    const v = valueAt(scope as Record<string, unknown>, path);
    if (v === null || v === undefined) return "";
    return Array.isArray(v) ? v.join(", ") : typeof v === "object" ? JSON.stringify(v) : String(v);
  });
}
