import { and, asc, eq, isNull, lt, or } from "drizzle-orm";
import type { ShardDb } from "../../db/client";
import { reviewResponses } from "../../db/schema";
import type { Env } from "../../env";
import { log } from "../../lib/log";
import { systemContext } from "../../lib/system-context";
import {
  type FetchFn,
  GoogleBusinessProfileClient,
  ReviewSiteError,
  reviewSiteClient,
} from "../../providers/review-sites";
import { siteConnection } from "../integrations/service";
import { connectionFor } from "./publish";
import { applyModeration } from "./reply-outcome";
import { findReviewRow } from "./service";

/** A reply held for moderation is asked about again after this long. */
export const RECHECK_MINUTES = 10;
export const PENDING_PER_RUN = 50;

/**
 * Sweep (CRONS.frequent, per shard: `db` is the shard): replies Google holds for moderation (providerState pending,
 * not read for RECHECK_MINUTES) are read back with reviews.get, through the shared quota, and the
 * verdict moves the response (reply-outcome.ts). An incremental sync may not see the verdict (it
 * stops at reviews older than the last sync), so this is what makes a pending reply end.
 * Quota used up: the run stops and the rest waits for the next one.
 */
export async function checkPendingReplies(
  env: Env,
  db: ShardDb,
  now: Date,
  deps: { fetch: FetchFn; now?: () => number } = { fetch: (...a) => fetch(...a) },
) {
  const cutoff = new Date(now.getTime() - RECHECK_MINUTES * 60_000).toISOString();
  const pending = await db
    .select()
    .from(reviewResponses)
    .where(
      and(
        eq(reviewResponses.providerState, "pending"),
        or(isNull(reviewResponses.providerCheckedAt), lt(reviewResponses.providerCheckedAt, cutoff)),
      ),
    )
    .orderBy(asc(reviewResponses.providerCheckedAt))
    .limit(PENDING_PER_RUN);
  let moved = 0;
  for (const response of pending) {
    const ctx = await systemContext(env, response.tenantId, "reply-moderation");
    try {
      const review = await findReviewRow(ctx, response.reviewId);
      const row = await connectionFor(ctx, review);
      const conn = row ? await siteConnection(env, row) : null;
      const client = conn ? reviewSiteClient(conn, deps.fetch, { quota: env.PROVIDER_QUOTA, now: deps.now }) : null;
      if (!(client instanceof GoogleBusinessProfileClient) || !review.externalReviewId) continue;
      const seen = await client.getReview(review.externalReviewId);
      // no reply on Google any more (deleted there): nothing to wait for; a person sees it approved
      const verdict = seen.replyModeration ?? {
        state: "rejected" as const,
        policyViolation: "the reply is no longer on Google",
      };
      await applyModeration(ctx, response, review, verdict, "google");
      moved++;
    } catch (err) {
      if (err instanceof ReviewSiteError && err.rateLimited) break;
      log.error("reply moderation check failed", { responseId: response.id, error: String(err) });
      // asked again after RECHECK_MINUTES like the others, so a failing one does not hold the head of the line
      await ctx.db
        .update(reviewResponses)
        .set({ providerCheckedAt: now.toISOString() })
        .where(and(eq(reviewResponses.id, response.id), eq(reviewResponses.tenantId, response.tenantId)));
    } finally {
      await ctx.settle();
    }
  }
  return { checked: pending.length, moved };
}
