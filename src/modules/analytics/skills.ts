import { and, asc, count, eq, gte } from "drizzle-orm";
import { analyticsFunnelDaily as f, solicitations, analyticsReviewDaily as v } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { findCampaignRow } from "../campaigns/service";
import { funnelBy, funnelCounts, orNull, reviewStats, reviewSums } from "./aggregates";
import { dayOf } from "./dates";
import type { FunnelCounts } from "./schemas";

const sinceDay = (since?: string) => (since ? dayOf(since) : undefined);

/**
 * Steps of the campaign.metrics funnel. Opens are not tracked (no tracking pixel is sent), so
 * `opened` is null rather than a guess; a "response" is a review that arrived for the solicitation.
 */
const steps = (c: FunnelCounts) => ({ ...c, opened: null, responded: c.converted });

/**
 * For the MCP skill campaign.metrics: the campaign's funnel by channel and per template, from `since` (a date or date-time). 404 for another tenant's campaign.
 * `outcomeUnknown` counts the sends whose outcome is unknown (counted in `sent`, docs/sending.md "Crash truth"), read live from the
 * solicitations (a partial index: almost always none).
 */
export async function campaignMetrics(ctx: ServiceContext, input: { campaignId: string; since?: string }) {
  const campaign = await findCampaignRow(ctx, input.campaignId);
  const since = sinceDay(input.since);
  const w = and(eq(f.tenantId, ctx.tenantId), eq(f.campaignId, campaign.id), since ? gte(f.day, since) : undefined);
  const [totals, byChannel, byTemplate, unknown] = await ctx.db.batch([
    funnelBy(ctx.db, w),
    funnelBy(ctx.db, w, ["channel"]),
    funnelBy(ctx.db, w, ["channel", "templateId"]),
    ctx.db
      .select({ n: count() })
      .from(solicitations)
      .where(
        and(
          eq(solicitations.campaignId, campaign.id),
          eq(solicitations.deliveryOutcome, "unknown"),
          eq(solicitations.tenantId, ctx.tenantId),
          since ? gte(solicitations.createdAt, since) : undefined,
        ),
      ),
  ]);
  return {
    campaignId: campaign.id,
    name: campaign.name,
    since: since ?? null,
    totals: { ...steps(funnelCounts(totals[0]!)), outcomeUnknown: unknown[0]?.n ?? 0 },
    byChannel: byChannel.map((x) => ({ channel: x.channel, ...steps(funnelCounts(x)) })),
    byTemplate: byTemplate.map((x) => ({
      channel: x.channel,
      templateId: orNull(x.templateId),
      ...steps(funnelCounts(x)),
    })),
  };
}

/** For the MCP skill review.summary: average rating, count, distribution by rating and by site. */
export async function reviewSummary(
  ctx: ServiceContext,
  input: { locationId?: string; siteType?: string; since?: string },
) {
  const since = sinceDay(input.since);
  const w = and(
    eq(v.tenantId, ctx.tenantId),
    input.locationId ? eq(v.locationId, input.locationId) : undefined,
    input.siteType ? eq(v.siteType, input.siteType) : undefined,
    since ? gte(v.day, since) : undefined,
  );
  const [totals, bySite] = await ctx.db.batch([
    ctx.db.select(reviewSums).from(v).where(w),
    ctx.db
      .select({ siteType: v.siteType, ...reviewSums })
      .from(v)
      .where(w)
      .groupBy(v.siteType)
      .orderBy(asc(v.siteType)),
  ]);
  const t = reviewStats(totals[0]!);
  return {
    since: since ?? null,
    count: t.count,
    averageRating: t.averageRating,
    distribution: t.distribution,
    sentiment: t.sentiment,
    bySite: bySite.map((x) => {
      const s = reviewStats(x);
      return { siteType: x.siteType, count: s.count, averageRating: s.averageRating, distribution: s.distribution };
    }),
  };
}
