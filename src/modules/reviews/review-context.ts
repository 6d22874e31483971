import { and, eq } from "drizzle-orm";
import { brands, locations } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { findReviewRow } from "./service";

/** A review with what a reply needs: the brand's name, voice and tone, and the location's contact. */
export async function reviewContext(ctx: ServiceContext, reviewId: string) {
  const review = await findReviewRow(ctx, reviewId);
  const row = await ctx.db
    .select({
      brandId: brands.id,
      brandName: brands.name,
      brandVoice: brands.brandVoice,
      brandTone: brands.brandTone,
      phone: locations.phone,
      email: locations.email,
    })
    .from(locations)
    .innerJoin(brands, eq(brands.id, locations.brandId))
    .where(and(eq(locations.id, review.locationId), eq(locations.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Location");
  return {
    review: {
      id: review.id,
      locationId: review.locationId,
      rating: review.rating,
      text: review.text,
      authorName: review.authorName,
      language: review.language,
      sentiment: review.sentiment,
      topics: review.topics,
    },
    brand: { id: row.brandId, name: row.brandName, brandVoice: row.brandVoice, brandTone: row.brandTone },
    contact: row.phone ?? row.email ?? null,
  };
}
export type ReviewContext = Awaited<ReturnType<typeof reviewContext>>;
