import { and, eq } from "drizzle-orm";
import { integrations } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { ApiError } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import type { GoogleBusinessProfileClient } from "../../providers/review-sites";
import type { IntegrationRow } from "../integrations/schemas";

/** A verified location is asked again after this long; an unverified one every time (the owner may just have verified it). */
const VERIFIED_FOR_MS = 24 * 3600_000;

export const GOOGLE_VERIFIED_RULE =
  "Google accepts replies only for verified locations: reviews.updateReply is 'only valid if the specified location is verified' " +
  "(developers.google.com/my-business/reference/rest/v4/accounts.locations.reviews/updateReply)";

/** 422 before anything is sent: the rule, and where the owner verifies the profile. */
export const locationNotVerified = () =>
  new ApiError(
    "PUBLISH_UNSUPPORTED",
    "This Google location is not verified, and Google accepts replies only for verified locations: verify it in Google Business Profile, then publish again",
    {
      replyUrl: "https://business.google.com/",
      siteType: "google",
      reason: "location_not_verified",
      rule: GOOGLE_VERIFIED_RULE,
    },
  );

export async function recordVerification(ctx: ServiceContext, row: IntegrationRow, verified: boolean) {
  await ctx.db
    .update(integrations)
    .set({ siteVerified: verified, siteVerifiedAt: nowIso() })
    .where(and(eq(integrations.id, row.id), eq(integrations.tenantId, ctx.tenantId)));
}

/**
 * Before a reply goes to Google: is the location verified? Known verified within a day: yes; else
 * the Verifications API (VoiceOfMerchantState) says, and the answer is kept on the connection.
 */
export async function assertGoogleVerified(
  ctx: ServiceContext,
  row: IntegrationRow,
  client: GoogleBusinessProfileClient,
) {
  if (row.siteVerified && row.siteVerifiedAt && Date.now() - Date.parse(row.siteVerifiedAt) < VERIFIED_FOR_MS) return;
  const verified = await client.isVerified();
  await recordVerification(ctx, row, verified);
  if (!verified) throw locationNotVerified();
}
