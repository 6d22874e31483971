import { z } from "@hono/zod-openapi";
import { RECOMMENDATION_STATUSES } from "../../../db/schema";
import { campaignMetrics, reviewSummary } from "../../analytics/skills";
import { listCompetitorsForSkill } from "../../competitors/service";
import { listRecommendationsForSkill } from "../../recommendations/service";
import { latestScore } from "../../reputation/service";
import { SiteType } from "../../reviews/schemas";
import { skill } from "./registry";

export const reviewSummarySkill = skill({
  name: "review.summary",
  title: "Review summary",
  description:
    "Average rating, review count and the distribution by star rating and by review site, optionally for one " +
    "location, one site, and reviews since a time.",
  input: z.object({
    locationId: z.string().max(64).optional().describe("only this location"),
    siteType: SiteType.optional().describe("only this review site (first_party: reviews collected by this service)"),
    since: z.iso.datetime({ offset: true }).optional().describe("ISO date-time"),
  }),
  scopes: ["read:reviews"],
  access: "read",
  handler: async (ctx, input) => reviewSummary(ctx, input),
});

export const campaignMetricsSkill = skill({
  name: "campaign.metrics",
  title: "Campaign funnel",
  description:
    "The review-request funnel of one campaign by channel and per template: sent, delivered, clicked and " +
    "converted (a review or feedback came back), with rates. Opens are not tracked (null). totals.outcomeUnknown: sends whose outcome is unknown (the runtime died while the provider was answering; counted in sent).",
  input: z.object({
    campaignId: z.string().min(1).max(64).describe("the campaign's id"),
    since: z.iso.datetime({ offset: true }).optional().describe("ISO date-time"),
  }),
  scopes: ["read:campaigns"],
  access: "read",
  handler: async (ctx, input) => campaignMetrics(ctx, input),
});

export const scoreLocationSkill = skill({
  name: "score.location",
  title: "Reputation score of a location",
  description:
    "The latest reputation score snapshot of a location (0-100) with its components (rating, velocity, " +
    "sentiment, response health, platform diversity) and when it was computed.",
  input: z.object({ locationId: z.string().min(1).max(64).describe("the location's id (from location.list)") }),
  scopes: ["read:score"],
  access: "read",
  agencyAware: true,
  handler: async (ctx, input) => latestScore(ctx, input.locationId),
});

export const competitorListSkill = skill({
  name: "competitor.list",
  title: "Tracked competitors",
  description:
    "Competitors tracked for the business's locations, with their average rating and review count where known.",
  input: z.object({
    locationId: z.string().max(64).optional().describe("only competitors of this location"),
    limit: z.number().int().min(1).max(100).default(25).describe("how many (default 25)"),
  }),
  scopes: ["read:competitors"],
  access: "read",
  handler: async (ctx, input) => ({ data: await listCompetitorsForSkill(ctx, input) }),
});

export const recommendationListSkill = skill({
  name: "recommendation.list",
  title: "Recommendations",
  description:
    "Suggested actions generated from the business's data (slow replies, negative-review spikes, a better " +
    "channel or template variant, missing review-site ids, ...), with priority, confidence and risk level. " +
    "scope is 'location:<id>' or 'tenant:<id>'.",
  input: z.object({
    status: z.enum(RECOMMENDATION_STATUSES).optional().describe("pending, accepted, rejected, snoozed or applied"),
    riskLevel: z.enum(["low", "medium", "high"]).optional(),
    scope: z.string().max(100).optional().describe("e.g. location:<locationId>"),
    limit: z.number().int().min(1).max(200).default(25).describe("how many (default 25)"),
  }),
  scopes: ["read:recommendations"],
  access: "read",
  handler: async (ctx, input) => ({ data: await listRecommendationsForSkill(ctx, input) }),
});
