import { and, count, eq, gte } from "drizzle-orm";
import { reviewResponses, reviews } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { ApiError, validationError } from "../../lib/errors";
import { type ReviewSiteClient, ReviewSiteError } from "../../providers/review-sites";
import { YELP_R2R_PER_LOCATION_PER_DAY } from "../../providers/review-sites/yelp";
import { clearNeedsAttention, markNeedsAttention, recordReplyAccess } from "../integrations/attention";
import type { IntegrationRow } from "../integrations/schemas";
import type { ReviewRow } from "./schemas";

/**
 * The sites' own rules for a reply, checked here before the site is called (docs/reviews.md,
 * "Providers' rules"), and what the site's refusal teaches about the connection.
 */

const DAY_MS = 24 * 3600_000;

/** A reply the site will not take by API for this connection: the manual path (422 PUBLISH_UNSUPPORTED, reason no_reply_access). */
export type Unsupported = (reason: string) => Promise<ApiError>;

/** Replies this tenant published through Yelp for the location in the last 24 hours (Yelp counts per location per owner per day). */
async function yelpRepliesToday(ctx: ServiceContext, locationId: string, now: Date) {
  const since = new Date(now.getTime() - DAY_MS).toISOString();
  const [row] = await ctx.db
    .select({ n: count() })
    .from(reviewResponses)
    .innerJoin(reviews, eq(reviews.id, reviewResponses.reviewId))
    .where(
      and(
        eq(reviewResponses.tenantId, ctx.tenantId),
        eq(reviews.locationId, locationId),
        eq(reviewResponses.publishedVia, "yelp"),
        gte(reviewResponses.publishedAt, since),
      ),
    );
  return row?.n ?? 0;
}

const quotaExceeded = (limit: number) =>
  new ApiError(
    "RATE_LIMITED",
    `Yelp takes at most ${limit} replies per location per business owner per day (Respond to Reviews API); publish later or post it by hand`,
    { siteType: "yelp", rule: "yelp_r2r_daily_quota", limit, retryAfterSeconds: 3600 },
    { "Retry-After": "3600" },
  );

/** Before the call: the connection's known reply access, the text rules, the daily quota. */
export async function checkBeforeReply(
  ctx: ServiceContext,
  row: IntegrationRow,
  client: ReviewSiteClient,
  review: ReviewRow,
  text: string,
  unsupported: Unsupported,
  now = new Date(),
) {
  if (row.replyAccess === "denied") throw await unsupported("no_reply_access");
  const problems = client.replyProblems?.(text) ?? [];
  if (problems.length)
    throw validationError(
      problems.map((message) => ({ path: "text", message })),
      `The reply breaks ${review.siteType}'s rules`,
    );
  if (
    review.siteType === "yelp" &&
    (await yelpRepliesToday(ctx, review.locationId, now)) >= YELP_R2R_PER_LOCATION_PER_DAY
  )
    throw quotaExceeded(YELP_R2R_PER_LOCATION_PER_DAY);
}

/** The site refused: record what it says about the connection, and answer what the refusal means for the caller (or null: the generic 502). */
export async function onReplyRefused(
  ctx: ServiceContext,
  row: IntegrationRow,
  err: ReviewSiteError,
  unsupported: Unsupported,
): Promise<ApiError | null> {
  if (err.attention) await markNeedsAttention(ctx.db, row, err.attention, "publish");
  switch (err.siteCode) {
    case "R2R_COMMENTS_NOT_ALLOWED":
      // the location has no Respond to Reviews feature: from now on the manual path, without calling Yelp
      await recordReplyAccess(ctx.db, row, "denied");
      return unsupported("no_reply_access");
    case "R2R_COMMENT_QUOTA_EXCEEDED":
      return quotaExceeded(YELP_R2R_PER_LOCATION_PER_DAY);
    case "R2R_INVALID_RESPONSE_TEXT":
      return validationError(
        [
          {
            path: "text",
            message: `Yelp refused the text: ${err.message} (empty, over 5,000 characters, foul language, or too similar to a reply already posted)`,
          },
        ],
        "The reply breaks yelp's rules",
      );
    default:
      return null;
  }
}

/** The site took the reply: the connection can reply by API and needs no attention. */
export async function onReplyAccepted(ctx: ServiceContext, row: IntegrationRow) {
  await recordReplyAccess(ctx.db, row, "granted");
  await clearNeedsAttention(ctx.db, row);
}

export { ReviewSiteError };
