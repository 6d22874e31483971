import { z } from "@hono/zod-openapi";
import { RECOMMENDATION_PRIORITIES, RECOMMENDATION_STATUSES, RISK_LEVELS, type recommendations } from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";

export const RecommendationSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    scopeType: z.string().openapi({ description: "tenant, location, campaign or experiment" }),
    scopeId: z.string(),
    type: z.string().openapi({ description: "the rule that produced it (docs/analytics.md)" }),
    title: z.string(),
    description: z.string(),
    priority: z.enum(RECOMMENDATION_PRIORITIES),
    status: z.enum(RECOMMENDATION_STATUSES),
    confidence: z.number().openapi({ description: "0..1" }),
    riskLevel: z.enum(RISK_LEVELS),
    actionPayload: z.record(z.string(), z.unknown()).openapi({ description: "what apply executes: {kind, ...}" }),
    evidence: z.record(z.string(), z.unknown()),
    snoozedUntil: DateTime.nullable(),
    decidedByUserId: z.string().nullable(),
    decidedAt: DateTime.nullable(),
    appliedAt: DateTime.nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("Recommendation");

export const RecommendationListQuery = PageQuerySchema.extend({
  status: z.enum(RECOMMENDATION_STATUSES).optional(),
  priority: z.enum(RECOMMENDATION_PRIORITIES).optional(),
  riskLevel: z.enum(RISK_LEVELS).optional(),
  scopeType: z.string().min(1).max(40).optional(),
  scopeId: z.string().min(1).max(64).optional(),
});
export type RecommendationListInput = z.infer<typeof RecommendationListQuery>;

const MAX_SNOOZE_DAYS = 365;
export const SnoozeBody = z
  .object({ until: z.iso.datetime({ offset: true }).openapi({ description: "in the future, at most 365 days ahead" }) })
  .refine((b) => Date.parse(b.until) > Date.now() && Date.parse(b.until) <= Date.now() + MAX_SNOOZE_DAYS * 86_400_000, {
    message: `Must be in the future and at most ${MAX_SNOOZE_DAYS} days ahead`,
    path: ["until"],
  })
  .openapi("SnoozeRecommendationRequest");

export const ApplyBody = z
  .object({
    input: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: "values the action asks for (actionPayload.requiredInput), e.g. {googlePlaceId}" }),
  })
  .openapi("ApplyRecommendationRequest");

export const CreateRecommendationInput = z.object({
  scopeType: z.string().min(1).max(40),
  scopeId: z.string().min(1).max(64),
  type: z.string().min(1).max(60),
  title: z.string().min(1).max(200),
  description: z.string().min(1).max(2000),
  priority: z.enum(RECOMMENDATION_PRIORITIES),
  confidence: z.number().min(0).max(1),
  riskLevel: z.enum(RISK_LEVELS),
  actionPayload: z.record(z.string(), z.unknown()).default({ kind: "none" }),
  evidence: z.record(z.string(), z.unknown()).default({}),
});
export type CreateRecommendation = z.input<typeof CreateRecommendationInput>;

export type RecommendationRow = typeof recommendations.$inferSelect;

export const toRecommendation = ({ dedupeKey: _key, ...r }: RecommendationRow) => r;
