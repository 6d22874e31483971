import { and, asc, eq, gte, inArray, isNull, lte, sql } from "drizzle-orm";
import {
  campaigns,
  experiments,
  analyticsFunnelDaily as f,
  locations,
  analyticsResponseDaily as r,
  analyticsReviewDaily as v,
} from "../../db/schema";
import { groupMap } from "../../lib/collections";
import type { ServiceContext } from "../../lib/context";
import { inJson } from "../../lib/sql";
import { rate, sumOf } from "../analytics/aggregates";
import { addDaysTo, dayOf } from "../analytics/dates";
import { twoProportionZTest } from "../experiments/stats";
import type { CreateRecommendation } from "./schemas";
import { createRecommendation } from "./service";

/** Thresholds of the rules (docs/analytics.md, "Recommendation rules"). */
export const RULES = {
  lowResponseRate: { minReviews: 5, below: 0.5, highBelow: 0.25 },
  negativeSpike: { minNegatives: 3, factor: 2 },
  betterConversion: { minSends: 30, pValue: 0.05 },
  capBlocks: { minBlocked: 10, minShare: 0.1, highShare: 0.25 },
  missingPlaceId: { maxPerRun: 50 },
} as const;

const round2 = (x: number) => Math.round(x * 100) / 100;
const pct = (x: number) => `${Math.round(x * 100)}%`;

type Draft = CreateRecommendation;

async function lowResponseRate(
  ctx: ServiceContext,
  from: string,
  to: string,
  names: Map<string, string>,
): Promise<Draft[]> {
  const t = RULES.lowResponseRate;
  const rows = await ctx.db
    .select({ locationId: r.locationId, reviews: sumOf(r.reviews), responded: sumOf(r.responded) })
    .from(r)
    .where(and(eq(r.tenantId, ctx.tenantId), gte(r.day, from), lte(r.day, to)))
    .groupBy(r.locationId);
  return rows
    .filter((x) => names.has(x.locationId) && x.reviews >= t.minReviews && x.responded / x.reviews < t.below)
    .map((x) => {
      const rr = x.responded / x.reviews;
      const name = names.get(x.locationId)!;
      return {
        type: "low_response_rate",
        scopeType: "location",
        scopeId: x.locationId,
        title: `Answer more reviews at ${name}`,
        description: `Only ${pct(rr)} of the ${x.reviews} reviews that arrived in the last 30 days were answered. An SLA rule puts unanswered reviews on the overdue list after 48 hours.`,
        priority: rr < t.highBelow ? "high" : "medium",
        confidence: round2(Math.min(1, x.reviews / 20)),
        riskLevel: "low",
        actionPayload: {
          kind: "create_sla_rule",
          rule: {
            name: `Answer reviews at ${name} within 48 h`,
            filter: { locationId: [x.locationId] },
            responseWindowHours: 48,
            escalateAfterHours: 72,
          },
        },
        evidence: { reviews: x.reviews, responded: x.responded, responseRate: rate(x.responded, x.reviews), from, to },
      };
    });
}

async function negativeSpike(ctx: ServiceContext, to: string, names: Map<string, string>): Promise<Draft[]> {
  const t = RULES.negativeSpike;
  const weekFrom = addDaysTo(to, -6);
  const baseFrom = addDaysTo(to, -34);
  const rows = await ctx.db
    .select({
      locationId: v.locationId,
      recent: sql<number>`cast(total(case when ${v.day} >= ${weekFrom} then ${v.negative} end) as integer)`.mapWith(
        Number,
      ),
      before: sql<number>`cast(total(case when ${v.day} < ${weekFrom} then ${v.negative} end) as integer)`.mapWith(
        Number,
      ),
    })
    .from(v)
    .where(and(eq(v.tenantId, ctx.tenantId), gte(v.day, baseFrom), lte(v.day, to)))
    .groupBy(v.locationId);
  return rows
    .filter((x) => names.has(x.locationId) && x.recent >= t.minNegatives && x.recent >= t.factor * (x.before / 4))
    .map((x) => {
      const weekly = x.before / 4;
      const name = names.get(x.locationId)!;
      return {
        type: "negative_review_spike",
        scopeType: "location",
        scopeId: x.locationId,
        title: `Negative reviews are up at ${name}`,
        description: `${x.recent} negative reviews in the last 7 days against ${round2(weekly)} a week over the 4 weeks before. Answer them within 24 hours and escalate to a manager.`,
        priority: x.recent >= 3 * Math.max(weekly, 1) ? "critical" : "high",
        confidence: round2(Math.min(1, 0.5 + x.recent / 10)),
        riskLevel: "low",
        actionPayload: {
          kind: "create_sla_rule",
          rule: {
            name: `Negative reviews at ${name}: answer within 24 h`,
            filter: { locationId: [x.locationId], sentiment: ["negative"] },
            responseWindowHours: 24,
            escalateAfterHours: 24,
            escalateToRole: "manager",
          },
        },
        evidence: { lastWeek: x.recent, weeklyBaseline: weekly, from: weekFrom, to },
      };
    });
}

type Arm = { key: string; sent: number; converted: number };

/** The best arm when it converts significantly better than every other arm with enough sends. */
function clearWinner(arms: Arm[]) {
  const t = RULES.betterConversion;
  const eligible = arms.filter((a) => a.sent >= t.minSends);
  if (eligible.length < 2) return null;
  const best = eligible.reduce((a, b) => (b.converted / b.sent > a.converted / a.sent ? b : a));
  let worstP = 0;
  for (const other of eligible) {
    if (other === best) continue;
    const test = twoProportionZTest(
      { successes: other.converted, trials: other.sent },
      { successes: best.converted, trials: best.sent },
    );
    if (!test || test.difference <= 0 || test.pValue >= t.pValue) return null;
    worstP = Math.max(worstP, test.pValue);
  }
  return { best, others: eligible.filter((a) => a !== best), confidence: round2(1 - worstP) };
}

const armsEvidence = (arms: Arm[]) => arms.map((a) => ({ ...a, conversionRate: rate(a.converted, a.sent) }));

async function betterChannel(ctx: ServiceContext, from: string, to: string): Promise<Draft[]> {
  const rows = await ctx.db
    .select({ campaignId: f.campaignId, channel: f.channel, sent: sumOf(f.sent), converted: sumOf(f.converted) })
    .from(f)
    .where(and(eq(f.tenantId, ctx.tenantId), gte(f.day, from), lte(f.day, to), sql`${f.campaignId} <> ''`))
    .groupBy(f.campaignId, f.channel);
  const byCampaign = groupMap(
    rows,
    (x) => x.campaignId,
    (x): Arm => ({ key: x.channel, sent: x.sent, converted: x.converted }),
  );
  const ids = [...byCampaign.keys()];
  if (!ids.length) return [];
  const found = await ctx.db
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.tenantId, ctx.tenantId), inJson(campaigns.id, ids)));
  const drafts: Draft[] = [];
  for (const c of found) {
    const arms = byCampaign.get(c.id)!;
    const win = clearWinner(arms);
    if (!win || !c.channels.includes(win.best.key as never) || c.channels.length < 2) continue;
    drafts.push({
      type: "better_channel",
      scopeType: "campaign",
      scopeId: c.id,
      title: `${win.best.key} converts best in "${c.name}"`,
      description: `Over the last 30 days ${win.best.key} converted ${pct(win.best.converted / win.best.sent)} of sends, significantly more than ${win.others.map((o) => `${o.key} (${pct(o.converted / o.sent)})`).join(", ")}. Send this campaign on ${win.best.key} only.`,
      priority: "medium",
      confidence: win.confidence,
      riskLevel: "medium",
      actionPayload: { kind: "update_campaign", campaignId: c.id, patch: { channels: [win.best.key] } },
      evidence: { arms: armsEvidence(arms), from, to },
    });
  }
  return drafts;
}

async function betterVariant(ctx: ServiceContext, from: string, to: string): Promise<Draft[]> {
  const running = await ctx.db
    .select()
    .from(experiments)
    .where(and(eq(experiments.tenantId, ctx.tenantId), eq(experiments.status, "running")))
    .limit(50);
  const drafts: Draft[] = [];
  for (const e of running) {
    if (!e.campaignId) continue;
    const variantIds = e.variants.map((x) => x.id);
    const rows = await ctx.db
      .select({ variantId: f.variantId, sent: sumOf(f.sent), converted: sumOf(f.converted) })
      .from(f)
      .where(
        and(
          eq(f.tenantId, ctx.tenantId),
          eq(f.campaignId, e.campaignId),
          inArray(f.variantId, variantIds),
          gte(f.day, e.startedAt ? dayOf(e.startedAt) : from),
          lte(f.day, to),
        ),
      )
      .groupBy(f.variantId);
    const arms = rows.map((x) => ({ key: x.variantId, sent: x.sent, converted: x.converted }));
    const win = clearWinner(arms);
    if (!win) continue;
    const name = e.variants.find((x) => x.id === win.best.key)?.name ?? win.best.key;
    drafts.push({
      type: "better_variant",
      scopeType: "experiment",
      scopeId: e.id,
      title: `Variant "${name}" wins "${e.name}"`,
      description: `"${name}" converted ${pct(win.best.converted / win.best.sent)} of sends, significantly more than every other variant. Complete the experiment with it as the winner.`,
      priority: "high",
      confidence: win.confidence,
      riskLevel: "medium",
      actionPayload: { kind: "complete_experiment", experimentId: e.id, winnerVariantId: win.best.key },
      evidence: { arms: armsEvidence(arms), campaignId: e.campaignId },
    });
  }
  return drafts;
}

async function missingPlaceId(ctx: ServiceContext): Promise<Draft[]> {
  const rows = await ctx.db
    .select({ id: locations.id, name: locations.name })
    .from(locations)
    .where(and(eq(locations.tenantId, ctx.tenantId), eq(locations.isActive, true), isNull(locations.googlePlaceId)))
    .orderBy(asc(locations.createdAt))
    .limit(RULES.missingPlaceId.maxPerRun);
  return rows.map((l) => ({
    type: "missing_place_id",
    scopeType: "location",
    scopeId: l.id,
    title: `Add the Google place id of ${l.name}`,
    description:
      "Without a place id, review requests cannot link to the Google review form (auto destinations fall back to the feedback page). Apply with input {googlePlaceId}.",
    priority: "medium",
    confidence: 1,
    riskLevel: "low",
    actionPayload: { kind: "update_location", locationId: l.id, patch: {}, requiredInput: ["googlePlaceId"] },
    evidence: { googlePlaceId: null },
  }));
}

async function capBlocks(ctx: ServiceContext, from: string, to: string): Promise<Draft[]> {
  const t = RULES.capBlocks;
  const [total] = await ctx.db
    .select({ requested: sumOf(f.requested), blockedByCap: sumOf(f.blockedByCap) })
    .from(f)
    .where(and(eq(f.tenantId, ctx.tenantId), gte(f.day, from), lte(f.day, to)));
  if (!total || total.blockedByCap < t.minBlocked || total.blockedByCap / total.requested < t.minShare) return [];
  const share = total.blockedByCap / total.requested;
  const top = await ctx.db
    .select({ campaignId: f.campaignId, blockedByCap: sumOf(f.blockedByCap) })
    .from(f)
    .where(and(eq(f.tenantId, ctx.tenantId), gte(f.day, from), lte(f.day, to)))
    .groupBy(f.campaignId)
    .orderBy(sql`2 desc`)
    .limit(5);
  return [
    {
      type: "frequency_cap_blocks",
      scopeType: "tenant",
      scopeId: ctx.tenantId,
      title: "Sends are piling up against frequency caps",
      description: `${total.blockedByCap} of ${total.requested} review requests (${pct(share)}) in the last 30 days were blocked by the daily or weekly cap: contacts are targeted by overlapping campaigns or short drip delays. Space the campaigns out; the caps protect recipients and stay as they are.`,
      priority: share >= t.highShare ? "high" : "medium",
      confidence: round2(Math.min(1, total.blockedByCap / 50)),
      riskLevel: "low",
      actionPayload: { kind: "none" },
      evidence: {
        requested: total.requested,
        blockedByCap: total.blockedByCap,
        share: rate(total.blockedByCap, total.requested),
        topCampaigns: top
          .filter((x) => x.blockedByCap > 0)
          .map((x) => ({ campaignId: x.campaignId || null, blockedByCap: x.blockedByCap })),
        from,
        to,
      },
    },
  ];
}

/** Runs every rule over the tenant's last 30 days of rollups and raises what they find (deduplicated). */
export async function generateRecommendations(ctx: ServiceContext, now = new Date()) {
  const to = dayOf(now);
  const from = addDaysTo(to, -29);
  const active = await ctx.db
    .select({ id: locations.id, name: locations.name })
    .from(locations)
    .where(and(eq(locations.tenantId, ctx.tenantId), eq(locations.isActive, true)));
  const names = new Map(active.map((l) => [l.id, l.name]));
  const drafts = [
    ...(await lowResponseRate(ctx, from, to, names)),
    ...(await negativeSpike(ctx, to, names)),
    ...(await betterChannel(ctx, from, to)),
    ...(await betterVariant(ctx, from, to)),
    ...(await missingPlaceId(ctx)),
    ...(await capBlocks(ctx, from, to)),
  ];
  let created = 0;
  for (const d of drafts) if ((await createRecommendation(ctx, d)).created) created++;
  return { considered: drafts.length, created };
}
