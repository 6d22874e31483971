import { and, desc, eq, isNull, or } from "drizzle-orm";
import { integrations, locations } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { ApiError, validationError } from "../../lib/errors";
import {
  type FetchFn,
  GoogleApiError,
  GoogleBusinessProfileClient,
  isReviewSite,
  QuotaWaitError,
  type ReplyOutcome,
  type ReviewSiteClient,
  ReviewSiteError,
  reviewSiteClient,
} from "../../providers/review-sites";
import { siteCallBudget } from "../integrations/call-budget";
import type { IntegrationRow } from "../integrations/schemas";
import { siteConnection } from "../integrations/service";
import { checkBeforeReply, onReplyAccepted, onReplyRefused, type Unsupported } from "./publish-rules";
import { applyModeration, markPublished } from "./reply-outcome";
import { nextStatus } from "./response-states";
import type { PublishResponseInput } from "./responses.schemas";
import { findResponseRow } from "./responses.service";
import type { ReviewRow } from "./schemas";
import { findReviewRow } from "./service";
import { assertGoogleVerified, locationNotVerified, recordVerification } from "./verification";

/** Where a person can reply by hand when the site (or this tenant's connection) cannot take the reply by API. */
async function manualReplyUrl(
  ctx: ServiceContext,
  review: ReviewRow,
  client: ReviewSiteClient | null,
): Promise<string | null> {
  if (client) return client.replyUrl({ externalReviewId: review.externalReviewId, url: review.externalUrl });
  if (review.externalUrl) return review.externalUrl;
  const loc = await ctx.db
    .select()
    .from(locations)
    .where(and(eq(locations.id, review.locationId), eq(locations.tenantId, ctx.tenantId)))
    .get();
  const bySite: Record<string, string | null | undefined> = {
    google: loc?.googleMyBusinessUrl ?? "https://business.google.com/reviews",
    yelp: loc?.yelpUrl ?? "https://biz.yelp.com/",
    facebook:
      loc?.facebookUrl ?? (loc?.facebookPageId ? `https://www.facebook.com/${loc.facebookPageId}/reviews` : null),
    trustpilot: "https://businessapp.b2b.trustpilot.com/reviews",
  };
  return bySite[review.siteType] ?? null;
}

const unsupported = (replyUrl: string | null, siteType: string, reason: string) =>
  new ApiError(
    "PUBLISH_UNSUPPORTED",
    `Replies to ${siteType} reviews cannot be posted here (${reason}); reply manually at details.replyUrl`,
    {
      replyUrl,
      siteType,
      reason,
    },
  );

/** The enabled connection for the review's site: the location's own first, else a tenant-wide one. */
export async function connectionFor(ctx: ServiceContext, review: ReviewRow) {
  return ctx.db
    .select()
    .from(integrations)
    .where(
      and(
        eq(integrations.tenantId, ctx.tenantId),
        eq(integrations.connectorType, review.siteType),
        eq(integrations.isEnabled, true),
        or(eq(integrations.locationId, review.locationId), isNull(integrations.locationId)),
      ),
    )
    .orderBy(desc(integrations.locationId))
    .get();
}

/**
 * POST /v1/responses/{id}/publish. First-party reviews publish locally; site reviews go through the
 * location's connected integration. No reply API or no connection: 422 PUBLISH_UNSUPPORTED with
 * details.replyUrl. Google: an unverified location is a 422 (reason location_not_verified) before the
 * reply is sent; our quota limiter saying wait is a 429 RATE_LIMITED with Retry-After; Google's
 * moderation answer moves the response (reply-outcome.ts). A site error: 502 UPSTREAM_ERROR with the
 * site's message. In every error case the response stays approved.
 */
export async function publishResponse(
  ctx: ServiceContext,
  id: string,
  deps: { fetch: FetchFn; now?: () => number } = { fetch: (...a) => fetch(...a) },
  input: PublishResponseInput = {},
) {
  const response = await findResponseRow(ctx, id);
  nextStatus(response.status, "publish");
  const review = await findReviewRow(ctx, response.reviewId);
  if (input.manual) return markPublished(ctx, response, review, { via: "manual", url: input.externalUrl ?? null });
  if (response.providerState === "pending") {
    throw new ApiError(
      "INVALID_TRANSITION",
      "The reply is with the site's moderators; it is published when they let it through",
      {
        from: response.status,
        to: "published",
        moderation: "pending",
      },
    );
  }
  if (review.isFirstParty || review.siteType === "first_party")
    return markPublished(ctx, response, review, { via: "local", url: null });

  const row = isReviewSite(review.siteType) ? await connectionFor(ctx, review) : undefined;
  const conn = row ? await siteConnection(ctx.env, row) : null;
  const client = conn
    ? reviewSiteClient(conn, deps.fetch, {
        quota: ctx.env.PROVIDER_QUOTA,
        now: deps.now,
        budget: siteCallBudget(ctx.env, conn),
      })
    : null;
  if (!client || !row) throw unsupported(await manualReplyUrl(ctx, review, null), review.siteType, "no_connection");
  if (!client.reply) throw unsupported(await manualReplyUrl(ctx, review, client), review.siteType, "no_reply_api");
  if (!review.externalReviewId)
    throw unsupported(await manualReplyUrl(ctx, review, client), review.siteType, "no_external_review_id");
  // the site's own reply rules (Yelp: length, emoji, daily cap, reply access) before any call
  const manualPath: Unsupported = async (reason) =>
    unsupported(await manualReplyUrl(ctx, review, client), review.siteType, reason);
  await checkBeforeReply(ctx, row, client, review, response.text, manualPath);
  let outcome: ReplyOutcome | undefined;
  try {
    if (client instanceof GoogleBusinessProfileClient) {
      GoogleBusinessProfileClient.assertReplyFits(response.text);
      await assertGoogleVerified(ctx, row, client);
    }
    outcome = (await client.reply(review.externalReviewId, response.text)) ?? undefined; // void: nothing to report
  } catch (err) {
    throw await publishError(ctx, row, review, err, manualPath);
  }
  await onReplyAccepted(ctx, row);
  if (outcome?.moderation) return applyModeration(ctx, response, review, outcome.moderation, review.siteType);
  return markPublished(ctx, response, review, { via: review.siteType, url: null });
}

/** What the caller is told when the reply could not go out (the response stays approved). */
async function publishError(
  ctx: ServiceContext,
  row: IntegrationRow,
  review: ReviewRow,
  err: unknown,
  manualPath: Unsupported,
): Promise<unknown> {
  if (err instanceof RangeError) return validationError([{ path: "text", message: err.message }]);
  if (err instanceof QuotaWaitError) {
    return new ApiError(
      "RATE_LIMITED",
      `${err.message}; publish again after Retry-After`,
      { siteType: review.siteType, retryAfterSeconds: err.retryAfterSeconds },
      {
        "Retry-After": String(err.retryAfterSeconds ?? 60),
      },
    );
  }
  if (err instanceof GoogleApiError && err.locationNotVerified) {
    // Google's own word (the location lost its verification since we last asked): remember it
    await recordVerification(ctx, row, false);
    return locationNotVerified();
  }
  if (err instanceof ReviewSiteError) {
    // a refusal the site means (no reply access, an owner problem): the manual path or needs-attention
    const meant = await onReplyRefused(ctx, row, err, manualPath);
    if (meant) return meant;
    return new ApiError("UPSTREAM_ERROR", `${review.siteType} refused the reply: ${err.message}`, {
      siteType: review.siteType,
      upstreamStatus: err.status,
      upstreamError: err.message,
      retryAfterSeconds: err.retryAfterSeconds,
    });
  }
  return err;
}
