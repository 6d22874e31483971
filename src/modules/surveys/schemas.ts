import { z } from "@hono/zod-openapi";
import { SENTIMENTS, SURVEY_STATUSES, SURVEY_TYPES, type surveys } from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { SurveyQuestionSchema } from "../feedback/questions";

const Questions = z
  .array(SurveyQuestionSchema)
  .max(50)
  .superRefine((qs, ctx) => {
    const seen = new Set<string>();
    qs.forEach((q, i) => {
      if (seen.has(q.id)) ctx.addIssue({ code: "custom", path: [i, "id"], message: "duplicate question id" });
      seen.add(q.id);
    });
  });

export const SurveySchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    name: z.string(),
    type: z.enum(SURVEY_TYPES),
    description: z.string().nullable(),
    questions: z.array(SurveyQuestionSchema),
    isTemplate: z.boolean(),
    status: z.enum(SURVEY_STATUSES),
    launchedAt: DateTime.nullable(),
    closedAt: DateTime.nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("Survey");

export const CreateSurveyBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    type: z.enum(SURVEY_TYPES),
    description: z.string().trim().max(2000).nullable().optional(),
    questions: Questions.optional().openapi({
      description: "extra questions after the type's main score; answers arrive in surveyResponses keyed by id",
    }),
    isTemplate: z.boolean().optional(),
  })
  .openapi("CreateSurveyRequest");

export const UpdateSurveyBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    description: z.string().trim().max(2000).nullable().optional(),
    questions: Questions.optional().openapi({ description: "only while the survey is a draft" }),
    isTemplate: z.boolean().optional(),
    status: z.enum(SURVEY_STATUSES).optional().openapi({ description: "draft -> active -> closed -> active (reopen)" }),
  })
  .openapi("UpdateSurveyRequest");

export const SurveyListQuery = PageQuerySchema.extend({
  status: z.enum(SURVEY_STATUSES).optional(),
  type: z.enum(SURVEY_TYPES).optional(),
  isTemplate: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional(),
});

export const SurveyResponsesQuery = PageQuerySchema.extend({
  since: z.iso
    .datetime({ offset: true })
    .optional()
    .openapi({ description: "only responses submitted at or after this time" }),
});

export const CampaignIdParam = z.object({ campaignId: z.string().min(1).max(64) });
export const AttachSurveyBody = z.object({ surveyId: z.string().min(1).max(64) }).openapi("AttachSurveyRequest");
export const CampaignSurveySchema = z
  .object({ campaignId: z.string(), survey: z.union([SurveySchema, z.null()]) })
  .openapi("CampaignSurvey");

const Count = z.number().int();
export const SurveyStatsSchema = z
  .object({
    surveyId: z.string(),
    type: z.enum(SURVEY_TYPES),
    totals: z.object({
      views: Count.openapi({ description: "solicitations whose feedback page was opened with this survey" }),
      responses: Count,
      withComment: Count,
      callbackRequests: Count,
    }),
    completionRate: z
      .number()
      .nullable()
      .openapi({ description: "responses / views, 0..1 (4 decimals); null without views" }),
    averageTimeToCompleteSeconds: z
      .number()
      .nullable()
      .openapi({ description: "mean of submit time minus the latest landing view before it" }),
    nps: z
      .object({
        score: z.number().nullable().openapi({ description: "% promoters - % detractors, -100..100 (1 decimal)" }),
        promoters: Count,
        passives: Count,
        detractors: Count,
        responses: Count,
      })
      .openapi({ description: "over responses with an NPS score" }),
    averageScore: z
      .number()
      .nullable()
      .openapi({ description: "mean of the type's main score (CSAT 1-5, CES 1-7, custom: rating 1-5)" }),
    sentiment: z.object(
      Object.fromEntries(SENTIMENTS.map((s) => [s, Count])) as Record<(typeof SENTIMENTS)[number], typeof Count>,
    ),
    topThemes: z
      .array(z.object({ theme: z.string(), count: Count }))
      .openapi({ description: "topics of the comments, most frequent first (at most 10)" }),
  })
  .openapi("SurveyStats");

export type SurveyRow = typeof surveys.$inferSelect;
export type CreateSurveyInput = z.infer<typeof CreateSurveyBody>;
export type UpdateSurveyInput = z.infer<typeof UpdateSurveyBody>;
export type SurveyListInput = z.infer<typeof SurveyListQuery>;

export const toSurvey = (s: SurveyRow) => ({
  id: s.id,
  tenantId: s.tenantId,
  name: s.name,
  type: s.type,
  description: s.description,
  questions: s.questions,
  isTemplate: s.isTemplate,
  status: s.status,
  launchedAt: s.launchedAt,
  closedAt: s.closedAt,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
});
