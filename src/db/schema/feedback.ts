import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { campaigns } from "./campaigns";
import { createdAt, timestamp, updatedAt } from "./columns";
import { SENTIMENTS } from "./reviews";
import { locations, tenants } from "./tenancy";

export const SURVEY_TYPES = ["NPS", "CSAT", "CES", "custom"] as const;
export type SurveyType = (typeof SURVEY_TYPES)[number];
export const SURVEY_STATUSES = ["draft", "active", "closed"] as const;
export type SurveyStatus = (typeof SURVEY_STATUSES)[number];

export const QUESTION_TYPES = [
  "nps",
  "csat",
  "ces",
  "rating",
  "text",
  "single_choice",
  "multiple_choice",
  "yes_no",
] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

export interface SurveyQuestion {
  id: string;
  type: QuestionType;
  label: string;
  required: boolean;
  /** the choices of single_choice / multiple_choice questions */
  options?: string[];
}

export const surveys = sqliteTable(
  "surveys",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    name: text("name").notNull(),
    type: text("type", { enum: SURVEY_TYPES }).notNull(),
    description: text("description"),
    questions: text("questions", { mode: "json" }).$type<SurveyQuestion[]>().notNull().default([]),
    isTemplate: integer("is_template", { mode: "boolean" }).notNull().default(false),
    status: text("status", { enum: SURVEY_STATUSES }).notNull().default("draft"),
    launchedAt: timestamp("launched_at"),
    closedAt: timestamp("closed_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("surveys_tenant_created_idx").on(t.tenantId, t.createdAt, t.id)],
);

/** The survey a campaign's feedback page shows (at most one per campaign). */
export const campaignSurveys = sqliteTable(
  "campaign_surveys",
  {
    campaignId: text("campaign_id")
      .primaryKey()
      .references(() => campaigns.id),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    surveyId: text("survey_id")
      .notNull()
      .references(() => surveys.id),
    createdAt: createdAt(),
  },
  (t) => [index("campaign_surveys_survey_idx").on(t.surveyId), index("campaign_surveys_tenant_idx").on(t.tenantId)],
);

export const FEEDBACK_SURVEY_TYPES = ["nps", "csat", "ces"] as const;
export type FeedbackSurveyType = (typeof FEEDBACK_SURVEY_TYPES)[number];

/** One submission per solicitation, from the public feedback page (POST /v1/f/{token}). */
export const feedbackSubmissions = sqliteTable(
  "feedback_submissions",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    locationId: text("location_id")
      .notNull()
      .references(() => locations.id),
    solicitationId: text("solicitation_id").notNull(),
    contactId: text("contact_id"),
    campaignId: text("campaign_id"),
    surveyId: text("survey_id"),
    type: text("type"),
    rating: integer("rating"),
    npsScore: integer("nps_score"),
    surveyType: text("survey_type", { enum: FEEDBACK_SURVEY_TYPES }),
    score: integer("score"),
    text: text("text"),
    followUpText: text("follow_up_text"),
    callbackRequested: integer("callback_requested", { mode: "boolean" }).notNull().default(false),
    surveyResponses: text("survey_responses", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    sentiment: text("sentiment", { enum: SENTIMENTS }),
    sentimentScore: real("sentiment_score"),
    topics: text("topics", { mode: "json" }).$type<string[]>().notNull().default([]),
    /** the latest landing view before the (last) submit: the start of "time to complete" */
    landedAt: timestamp("landed_at"),
    submittedAt: text("submitted_at").notNull(),
    /** free text wiped by erasure or retention; ratings stay for statistics */
    anonymizedAt: timestamp("anonymized_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("feedback_solicitation_uq").on(t.solicitationId),
    index("feedback_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("feedback_survey_submitted_idx").on(t.surveyId, t.submittedAt, t.id),
    index("feedback_contact_idx").on(t.contactId),
    index("feedback_location_idx").on(t.locationId),
    index("feedback_retention_idx").on(t.tenantId, t.anonymizedAt, t.createdAt),
  ],
);

/** Landing views of a feedback page, one row per solicitation (completion rate and time to complete). */
export const feedbackViews = sqliteTable(
  "feedback_views",
  {
    solicitationId: text("solicitation_id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    locationId: text("location_id").notNull(),
    surveyId: text("survey_id"),
    views: integer("views").notNull().default(1),
    firstViewedAt: text("first_viewed_at").notNull(),
    lastViewedAt: text("last_viewed_at").notNull(),
  },
  (t) => [index("feedback_views_survey_idx").on(t.surveyId), index("feedback_views_tenant_idx").on(t.tenantId)],
);
