import { z } from "@hono/zod-openapi";
import { paged } from "../../../lib/openapi";
import { FunnelCountsSchema, ReviewStatsSchema } from "../../analytics/schemas";
import { BindingSchema } from "../../campaigns/bindings.schemas";
import { CampaignSchema } from "../../campaigns/schemas";
import { SequenceSchema } from "../../campaigns/sequences.schemas";
import { ContactSchema } from "../../contacts/schemas";
import { FeedbackSchema } from "../../feedback/schemas";
import { InboxItemDetailSchema } from "../../inbox/schemas";
import { LocationSchema } from "../../locations/schemas";
import { RecommendationSchema } from "../../recommendations/schemas";
import { ScoreSnapshotSchema } from "../../reputation/schemas";
import { AnsweredReviewSchema, ReviewResponseSchema } from "../../reviews/responses.schemas";
import { ReviewSchema } from "../../reviews/schemas";
import { SurveyStatsSchema } from "../../surveys/schemas";
import { TenantSchema } from "../../tenants/schemas";

/*
 * The structuredContent of every skill, as zod: the REST response schema where a REST route returns
 * the same thing, else the skill's own shape. tools/list publishes them as outputSchema and
 * test/mcp/output-schemas.test.ts validates real calls against them. Kept apart from the skill files
 * so a skill's input schema and its output schema can change independently.
 */
// campaign.metrics adds the spec's step names: opens are not tracked, responded = converted
const Steps = FunnelCountsSchema.extend({ opened: z.null(), responded: z.number().int() });

export const SKILL_OUTPUTS: Record<string, z.ZodType> = {
  "agency.list-tenants": z.object({ data: z.array(TenantSchema), total: z.number().int() }),
  "location.finder": z.object({
    data: z.array(
      LocationSchema.extend({
        distanceKm: z.number().nullable().describe("km from lat/lng; null for a text-only search"),
      }),
    ),
    total: z.number().int(),
  }),
  "review.list": paged(ReviewSchema),
  "review.summary": ReviewStatsSchema.extend({
    since: z.string().nullable(),
    bySite: z.array(ReviewStatsSchema.omit({ sentiment: true }).extend({ siteType: z.string() })),
  }),
  "approval.list-pending": z.object({
    data: z.array(
      ReviewResponseSchema.extend({
        review: AnsweredReviewSchema.nullable().describe("the review the reply answers; null when reviews is withheld"),
      }),
    ),
    total: z.number().int(),
    reviews: z
      .enum(["shown", "withheld"])
      .describe("withheld: the caller was not granted read:reviews, so every data[].review is null"),
  }),
  "inbox.get": InboxItemDetailSchema,
  "campaign.get": CampaignSchema.extend({ templates: z.array(BindingSchema), sequence: SequenceSchema.nullable() }),
  "campaign.metrics": z.object({
    campaignId: z.string(),
    name: z.string(),
    since: z.string().nullable(),
    totals: Steps.extend({
      outcomeUnknown: z
        .number()
        .int()
        .describe(
          "sends whose outcome is unknown (the runtime died while the provider answered; counted in sent): docs/sending.md",
        ),
    }),
    byChannel: z.array(Steps.extend({ channel: z.string() })),
    byTemplate: z.array(Steps.extend({ channel: z.string(), templateId: z.string().nullable() })),
  }),
  "contact.suppress": ContactSchema,
  "score.location": ScoreSnapshotSchema,
  "competitor.list": z.object({
    data: z.array(
      z.object({
        id: z.string(),
        locationId: z.string(),
        name: z.string(),
        averageRating: z.number().nullable(),
        reviewCount: z.number().int().nullable(),
        bySite: z.record(z.string(), z.unknown()),
        siteIds: z.record(z.string(), z.string().nullable()),
        lastRefreshedAt: z.string().nullable(),
      }),
    ),
  }),
  "recommendation.list": z.object({ data: z.array(RecommendationSchema) }),
  "survey.stats": SurveyStatsSchema,
  "survey.responses": paged(FeedbackSchema),
};

/** A skill's declared structuredContent schema by name (agent skills declare theirs with `output:`). */
export const outputSchemaOf = (name: string): z.ZodType | undefined => SKILL_OUTPUTS[name];
