import { z } from "@hono/zod-openapi";
import {
  FEEDBACK_SURVEY_TYPES,
  type FeedbackSurveyType,
  type feedbackSubmissions,
  SENTIMENTS,
  SURVEY_TYPES,
} from "../../db/schema";
import { DateTime } from "../../lib/openapi";
import { EffectiveBrandSchema } from "../white-label/schemas";
import { SurveyQuestionSchema } from "./questions";

export const NPS_BUCKETS = ["promoter", "passive", "detractor"] as const;
export type NpsBucket = (typeof NPS_BUCKETS)[number];

/** NPS buckets: promoters 9-10, passives 7-8, detractors 0-6. */
export const npsBucket = (score: number | null | undefined): NpsBucket | null =>
  score == null ? null : score >= 9 ? "promoter" : score >= 7 ? "passive" : "detractor";

/** The score range of each survey type: NPS 0..10, CSAT 1..5, CES 1..7 (7 = very easy). */
export const SCORE_RANGE: Record<FeedbackSurveyType, [number, number]> = { nps: [0, 10], csat: [1, 5], ces: [1, 7] };

export const FeedbackSchema = z
  .object({
    id: z.string(),
    locationId: z.string(),
    solicitationId: z.string(),
    contactId: z.string().nullable(),
    campaignId: z.string().nullable(),
    surveyId: z.string().nullable(),
    type: z.string().nullable(),
    rating: z.number().int().nullable(),
    npsScore: z.number().int().nullable(),
    npsBucket: z.enum(NPS_BUCKETS).nullable(),
    surveyType: z.enum(FEEDBACK_SURVEY_TYPES).nullable(),
    score: z.number().int().nullable(),
    text: z.string().nullable(),
    followUpText: z.string().nullable(),
    callbackRequested: z.boolean(),
    surveyResponses: z.record(z.string(), z.unknown()),
    sentiment: z.enum(SENTIMENTS).nullable(),
    topics: z.array(z.string()),
    landedAt: DateTime.nullable(),
    submittedAt: DateTime,
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("Feedback");

export type FeedbackRow = typeof feedbackSubmissions.$inferSelect;

export const toFeedback = (f: FeedbackRow) => ({
  id: f.id,
  locationId: f.locationId,
  solicitationId: f.solicitationId,
  contactId: f.contactId,
  campaignId: f.campaignId,
  surveyId: f.surveyId,
  type: f.type,
  rating: f.rating,
  npsScore: f.npsScore,
  npsBucket: npsBucket(f.npsScore),
  surveyType: f.surveyType,
  score: f.score,
  text: f.text,
  followUpText: f.followUpText,
  callbackRequested: f.callbackRequested,
  surveyResponses: f.surveyResponses,
  sentiment: f.sentiment,
  topics: f.topics,
  landedAt: f.landedAt,
  submittedAt: f.submittedAt,
  createdAt: f.createdAt,
  updatedAt: f.updatedAt,
});

export const TokenParam = z.object({ token: z.string().min(1).max(512) });

const AnswerValue = z.union([z.string().max(2000), z.number(), z.boolean(), z.array(z.string().max(200)).max(50)]);

export const SubmitFeedbackBody = z
  .object({
    type: z.string().trim().min(1).max(50).optional().openapi({ description: "free label, e.g. feedback or survey" }),
    rating: z.number().int().min(1).max(5).optional(),
    npsScore: z.number().int().min(0).max(10).optional(),
    surveyType: z.enum(FEEDBACK_SURVEY_TYPES).optional(),
    score: z.number().int().optional().openapi({ description: "needs surveyType; nps 0..10, csat 1..5, ces 1..7" }),
    followUpText: z.string().trim().max(2000).optional(),
    text: z.string().trim().max(5000).optional(),
    callbackRequested: z.boolean().optional(),
    surveyResponses: z
      .record(z.string().max(64), AnswerValue)
      .optional()
      .openapi({ description: "answers keyed by the survey's question ids" }),
  })
  .superRefine((b, ctx) => {
    if (b.score !== undefined) {
      if (!b.surveyType)
        ctx.addIssue({ code: "custom", path: ["surveyType"], message: "surveyType is required with score" });
      else {
        const [min, max] = SCORE_RANGE[b.surveyType];
        if (b.score < min || b.score > max)
          ctx.addIssue({ code: "custom", path: ["score"], message: `${b.surveyType} scores are ${min} to ${max}` });
      }
    }
    if (b.surveyType === "nps" && b.score !== undefined && b.npsScore !== undefined && b.score !== b.npsScore) {
      ctx.addIssue({ code: "custom", path: ["npsScore"], message: "npsScore and score differ" });
    }
    if (b.surveyResponses && Object.keys(b.surveyResponses).length > 50) {
      ctx.addIssue({ code: "custom", path: ["surveyResponses"], message: "At most 50 answers" });
    }
    const empty = [
      b.rating,
      b.npsScore,
      b.score,
      b.text || undefined,
      b.followUpText || undefined,
      b.callbackRequested || undefined,
    ].every((v) => v === undefined);
    if (empty && Object.keys(b.surveyResponses ?? {}).length === 0) {
      ctx.addIssue({
        code: "custom",
        path: [],
        message: "Give a rating, a score, a comment, answers or a callback request",
      });
    }
  })
  .openapi("SubmitFeedbackRequest");

export type SubmitFeedbackInput = z.infer<typeof SubmitFeedbackBody>;

export const ReviewLinkSchema = z
  .object({ site: z.enum(["google", "yelp", "facebook"]), label: z.string(), url: z.string() })
  .openapi("PublicReviewLink");

export const LandingSurveySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(SURVEY_TYPES),
    description: z.string().nullable(),
    questions: z.array(SurveyQuestionSchema),
  })
  .openapi("FeedbackLandingSurvey");

export const LandingSchema = z
  .object({
    brand: z.object({ name: z.string(), logoUrl: z.string().nullable() }),
    location: z.object({
      id: z.string(),
      name: z.string(),
      city: z.string().nullable(),
      state: z.string().nullable(),
      phone: z.string().nullable(),
    }),
    survey: LandingSurveySchema.nullable().openapi({
      description: "the active survey attached to the solicitation's campaign; null: the plain 1-5 rating form",
    }),
    reviewLinks: z
      .array(ReviewLinkSchema)
      .openapi({ description: "offered to everyone after submitting, whatever the rating (no review gating)" }),
    submitUrl: z.string(),
    whiteLabel: EffectiveBrandSchema.openapi({
      description:
        "the agency's (or tenant's) white-label brand the page shows: colours, footer logo and name, support email",
    }),
  })
  .openapi("FeedbackLanding");

export const SubmitResultSchema = z
  .object({
    success: z.boolean(),
    feedbackId: z.string(),
    updated: z
      .boolean()
      .openapi({ description: "true when this replaced the solicitation's earlier submission (within 24 hours)" }),
    reviewLinks: z.array(ReviewLinkSchema),
  })
  .openapi("FeedbackSubmitted");
