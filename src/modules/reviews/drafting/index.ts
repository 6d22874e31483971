import { and, eq } from "drizzle-orm";
import { brands, locations } from "../../../db/schema";
import type { ServiceContext } from "../../../lib/context";
import { notFound } from "../../../lib/errors";
import type { ReviewRow } from "../schemas";
import { draftReply, type DraftInput } from "./engine";
import { draftWithWorkersAi } from "./workers-ai";

/** Drafts a reply to the review in the brand's voice: Workers AI when the AI binding exists, else the built-in engine. */
export async function draftResponse(ctx: ServiceContext, review: ReviewRow): Promise<string> {
  const row = await ctx.db
    .select({ brandName: brands.name, brandVoice: brands.brandVoice, brandTone: brands.brandTone, phone: locations.phone, email: locations.email })
    .from(locations)
    .innerJoin(brands, eq(brands.id, locations.brandId))
    .where(and(eq(locations.id, review.locationId), eq(locations.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Location");
  const input: DraftInput = {
    reviewId: review.id,
    rating: review.rating,
    sentiment: review.sentiment,
    topics: review.topics,
    authorName: review.authorName,
    language: review.language,
    brand: { name: row.brandName, brandVoice: row.brandVoice, brandTone: row.brandTone },
    contact: row.phone ?? row.email ?? null,
  };
  const builtIn = draftReply(input);
  if (!ctx.env.AI) return builtIn;
  return (await draftWithWorkersAi(ctx.env.AI as never, input, review.text, builtIn)) ?? builtIn;
}
