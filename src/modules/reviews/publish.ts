import { and, desc, eq, isNull, or } from "drizzle-orm";
import { inboxItems, integrations, locations, reviews } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { ApiError, validationError } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { isReviewSite, reviewSiteClient, ReviewSiteError, type FetchFn, type ReviewSiteClient } from "../../providers/review-sites";
import { siteConnection } from "../integrations/service";
import { siteCallBudget } from "../integrations/call-budget";
import { nextStatus } from "./response-states";
import { findResponseRow, moveResponse } from "./responses.service";
import type { PublishResponseInput, ResponseRow } from "./responses.schemas";
import type { ReviewRow } from "./schemas";
import { findReviewRow } from "./service";
import { checkBeforeReply, onReplyAccepted, onReplyRefused } from "./publish-rules";

/** Where a person can reply by hand when the site (or this tenant's connection) cannot take the reply by API. */
async function manualReplyUrl(ctx: ServiceContext, review: ReviewRow, client: ReviewSiteClient | null): Promise<string | null> {
  if (client) return client.replyUrl({ externalReviewId: review.externalReviewId, url: review.externalUrl });
  if (review.externalUrl) return review.externalUrl;
  const loc = await ctx.db.select().from(locations).where(and(eq(locations.id, review.locationId), eq(locations.tenantId, ctx.tenantId))).get();
  const bySite: Record<string, string | null | undefined> = {
    google: loc?.googleMyBusinessUrl ?? "https://business.google.com/reviews",
    yelp: loc?.yelpUrl ?? "https://biz.yelp.com/",
    facebook: loc?.facebookUrl ?? (loc?.facebookPageId ? `https://www.facebook.com/${loc.facebookPageId}/reviews` : null),
    trustpilot: "https://businessapp.b2b.trustpilot.com/reviews",
  };
  return bySite[review.siteType] ?? null;
}

const unsupported = (replyUrl: string | null, siteType: string, reason: string) =>
  new ApiError("PUBLISH_UNSUPPORTED", `Replies to ${siteType} reviews cannot be posted here (${reason}); reply manually at details.replyUrl`, {
    replyUrl, siteType, reason,
  });

/** The enabled connection for the review's site: the location's own first, else a tenant-wide one. */
async function connectionFor(ctx: ServiceContext, review: ReviewRow) {
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
 * details.replyUrl. A site error: 502 UPSTREAM_ERROR with the site's message. Either way the
 * response stays approved.
 */
export async function publishResponse(
  ctx: ServiceContext,
  id: string,
  deps: { fetch: FetchFn } = { fetch: (...a) => fetch(...a) },
  input: PublishResponseInput = {},
) {
  const response = await findResponseRow(ctx, id);
  nextStatus(response.status, "publish");
  const review = await findReviewRow(ctx, response.reviewId);
  if (input.manual) return markPublished(ctx, response, review, { via: "manual", url: input.externalUrl ?? null });

  let via = "local";
  if (!(review.isFirstParty || review.siteType === "first_party")) {
    const row = isReviewSite(review.siteType) ? await connectionFor(ctx, review) : undefined;
    const conn = row ? await siteConnection(ctx.env, row) : null;
    const client = conn ? reviewSiteClient(conn, deps.fetch, { budget: siteCallBudget(ctx.env, conn) }) : null;
    if (!client) throw unsupported(await manualReplyUrl(ctx, review, null), review.siteType, "no_connection");
    if (!client.reply) throw unsupported(await manualReplyUrl(ctx, review, client), review.siteType, "no_reply_api");
    if (!review.externalReviewId) throw unsupported(await manualReplyUrl(ctx, review, client), review.siteType, "no_external_review_id");
    const manualPath = async (reason: string) => unsupported(await manualReplyUrl(ctx, review, client), review.siteType, reason);
    await checkBeforeReply(ctx, row!, client, review, response.text, manualPath);
    try {
      await client.reply(review.externalReviewId, response.text);
    } catch (err) {
      if (err instanceof RangeError) throw validationError([{ path: "text", message: err.message }]);
      if (err instanceof ReviewSiteError) {
        const meant = await onReplyRefused(ctx, row!, err, manualPath);
        if (meant) throw meant;
        throw new ApiError("UPSTREAM_ERROR", `${review.siteType} refused the reply: ${err.message}`, {
          siteType: review.siteType, upstreamStatus: err.status, upstreamError: err.message, retryAfterSeconds: err.retryAfterSeconds,
        });
      }
      throw err;
    }
    await onReplyAccepted(ctx, row!);
    via = review.siteType;
  }

  return markPublished(ctx, response, review, { via, url: null });
}

/**
 * approved -> published, with who did it, audited (response.published) with the review and its inbox
 * item marked responded in the same batch: the same for an API publish and for a reply a person
 * posted by hand on the site (via "manual", the sites without a reply API, as every competitor offers).
 */
function markPublished(ctx: ServiceContext, response: ResponseRow, review: ReviewRow, o: { via: string; url: string | null }) {
  const now = nowIso();
  const by = ctx.actor.type === "user" ? ctx.actor.userId : null;
  return moveResponse(ctx, response, "publish", { publishedAt: now, publishedVia: o.via, publishedByUserId: by, publishedUrl: o.url }, [
    ctx.db.update(reviews).set({ status: "responded", updatedAt: now }).where(and(eq(reviews.id, review.id), eq(reviews.tenantId, ctx.tenantId))),
    ctx.db.update(inboxItems).set({ status: "responded", updatedAt: now }).where(and(eq(inboxItems.reviewId, review.id), eq(inboxItems.tenantId, ctx.tenantId))),
  ]);
}
