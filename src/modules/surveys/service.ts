import { and, count, eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { campaignSurveys, campaigns, feedbackSubmissions, type SurveyStatus, surveys } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { conflict, invalidTransition, notFound, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage } from "../../lib/pagination";
import { nowIso } from "../../lib/time";
import {
  type CreateSurveyInput,
  type SurveyListInput,
  type SurveyRow,
  toSurvey,
  type UpdateSurveyInput,
} from "./schemas";

/**
 * Survey status moves: launch (draft -> active), close (active -> closed), reopen (closed -> active).
 * Only an active survey is shown on feedback pages; questions can change only while it is a draft.
 */
export const SURVEY_TRANSITIONS: Record<SurveyStatus, readonly SurveyStatus[]> = {
  draft: ["active"],
  active: ["closed"],
  closed: ["active"],
};

export async function listSurveys(ctx: ServiceContext, q: Partial<SurveyListInput> & { limit: number }) {
  const where = and(
    eq(surveys.tenantId, ctx.tenantId),
    q.status ? eq(surveys.status, q.status) : undefined,
    q.type ? eq(surveys.type, q.type) : undefined,
    q.isTemplate === undefined ? undefined : eq(surveys.isTemplate, q.isTemplate),
  );
  return keysetPage(ctx.db, {
    query: { cursor: q.cursor, limit: q.limit },
    sort: [surveys.createdAt, surveys.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(surveys)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(surveys).where(where),
    key: (s) => [s.createdAt, s.id],
    map: toSurvey,
  });
}

export async function findSurveyRow(ctx: ServiceContext, id: string): Promise<SurveyRow> {
  const row = await ctx.db
    .select()
    .from(surveys)
    .where(and(eq(surveys.id, id), eq(surveys.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Survey");
  return row;
}

export const getSurvey = async (ctx: ServiceContext, id: string) => toSurvey(await findSurveyRow(ctx, id));

export async function createSurvey(ctx: ServiceContext, input: CreateSurveyInput) {
  const now = nowIso();
  const row: SurveyRow = {
    id: newId(),
    tenantId: ctx.tenantId,
    name: input.name,
    type: input.type,
    description: input.description ?? null,
    questions: input.questions ?? [],
    isTemplate: input.isTemplate ?? false,
    status: "draft",
    launchedAt: null,
    closedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await commit(ctx, [
    ctx.db.insert(surveys).values(row),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "survey.created",
      resourceType: "survey",
      resourceId: row.id,
      nextState: row,
    }),
  ]);
  return toSurvey(row);
}

export async function updateSurvey(ctx: ServiceContext, id: string, patch: UpdateSurveyInput) {
  const before = await findSurveyRow(ctx, id);
  const now = nowIso();
  const status = patch.status ?? before.status;
  if (status !== before.status && !SURVEY_TRANSITIONS[before.status].includes(status))
    throw invalidTransition(before.status, status, "Survey");
  if (patch.questions && before.status !== "draft") {
    throw invalidTransition(before.status, "draft", "Survey"); // answers already refer to these questions
  }
  if (status === "active" && (patch.isTemplate ?? before.isTemplate)) {
    throw validationError([{ path: "status", message: "A template cannot be launched; create a survey from it" }]);
  }
  const after: SurveyRow = {
    ...before,
    ...patch,
    description: patch.description === undefined ? before.description : patch.description,
    status,
    launchedAt: status === "active" && before.status === "draft" ? now : before.launchedAt,
    closedAt: status === "closed" ? now : status === "active" ? null : before.closedAt,
    updatedAt: now,
  };
  const { id: _id, tenantId: _t, createdAt: _c, ...set } = after;
  await commit(ctx, [
    ctx.db
      .update(surveys)
      .set(set)
      .where(and(eq(surveys.id, id), eq(surveys.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action:
        status !== before.status
          ? `survey.${status === "active" ? (before.status === "draft" ? "launched" : "reopened") : "closed"}`
          : "survey.updated",
      resourceType: "survey",
      resourceId: id,
      previousState: before,
      nextState: after,
    }),
  ]);
  return toSurvey(after);
}

/** Only a survey nobody answered can be deleted (close it otherwise); its campaign attachments go with it. */
export async function deleteSurvey(ctx: ServiceContext, id: string) {
  const before = await findSurveyRow(ctx, id);
  const answered = await ctx.db
    .select({ id: feedbackSubmissions.id })
    .from(feedbackSubmissions)
    .where(and(eq(feedbackSubmissions.tenantId, ctx.tenantId), eq(feedbackSubmissions.surveyId, id)))
    .limit(1)
    .get();
  if (answered) throw conflict("The survey has responses; close it instead");
  await commit(ctx, [
    ctx.db
      .delete(campaignSurveys)
      .where(and(eq(campaignSurveys.surveyId, id), eq(campaignSurveys.tenantId, ctx.tenantId))),
    ctx.db.delete(surveys).where(and(eq(surveys.id, id), eq(surveys.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "survey.deleted",
      resourceType: "survey",
      resourceId: id,
      previousState: before,
    }),
  ]);
}

async function findCampaign(ctx: ServiceContext, campaignId: string) {
  const row = await ctx.db
    .select({ id: campaigns.id, reviewDestination: campaigns.reviewDestination })
    .from(campaigns)
    .where(and(eq(campaigns.id, campaignId), eq(campaigns.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Campaign");
  return row;
}

export async function getCampaignSurvey(ctx: ServiceContext, campaignId: string) {
  await findCampaign(ctx, campaignId);
  const row = await ctx.db
    .select({ survey: surveys })
    .from(campaignSurveys)
    .innerJoin(surveys, eq(surveys.id, campaignSurveys.surveyId))
    .where(and(eq(campaignSurveys.campaignId, campaignId), eq(campaignSurveys.tenantId, ctx.tenantId)))
    .get();
  return { campaignId, survey: row ? toSurvey(row.survey) : null };
}

/**
 * PUT /v1/campaigns/{campaignId}/survey: the campaign's feedback page shows this survey (replacing
 * any other), and the campaign's reviewDestination becomes `survey` so its links lead there.
 * Links already sent keep the destination they were minted with.
 */
export async function attachSurvey(ctx: ServiceContext, campaignId: string, surveyId: string) {
  const campaign = await findCampaign(ctx, campaignId);
  const survey = await ctx.db
    .select()
    .from(surveys)
    .where(and(eq(surveys.id, surveyId), eq(surveys.tenantId, ctx.tenantId)))
    .get();
  if (!survey) throw validationError([{ path: "surveyId", message: "Unknown survey" }]);
  if (survey.isTemplate)
    throw validationError([{ path: "surveyId", message: "A template cannot be attached; create a survey from it" }]);
  const now = nowIso();
  const statements: BatchItem<"sqlite">[] = [
    ctx.db
      .insert(campaignSurveys)
      .values({ campaignId, tenantId: ctx.tenantId, surveyId, createdAt: now })
      .onConflictDoUpdate({ target: campaignSurveys.campaignId, set: { surveyId, createdAt: now } }),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "campaign.survey_attached",
      resourceType: "campaign",
      resourceId: campaignId,
      previousState: { reviewDestination: campaign.reviewDestination },
      nextState: { surveyId, reviewDestination: "survey" },
    }),
  ];
  if (campaign.reviewDestination !== "survey") {
    statements.push(
      ctx.db
        .update(campaigns)
        .set({ reviewDestination: "survey", updatedAt: now })
        .where(and(eq(campaigns.id, campaignId), eq(campaigns.tenantId, ctx.tenantId))),
    );
  }
  await commit(ctx, statements);
  return { campaignId, survey: toSurvey(survey) };
}

/** DELETE /v1/campaigns/{campaignId}/survey: the page falls back to the 1-5 rating form; reviewDestination stays. */
export async function detachSurvey(ctx: ServiceContext, campaignId: string) {
  await findCampaign(ctx, campaignId);
  await commit(ctx, [
    ctx.db
      .delete(campaignSurveys)
      .where(and(eq(campaignSurveys.campaignId, campaignId), eq(campaignSurveys.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "campaign.survey_detached",
      resourceType: "campaign",
      resourceId: campaignId,
    }),
  ]);
}
