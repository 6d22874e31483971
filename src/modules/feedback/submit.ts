import { and, eq, isNull } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import {
  type FeedbackSurveyType,
  feedbackSubmissions,
  feedbackViews,
  inboxItems,
  solicitations,
} from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit, type PendingEvent } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { isUniqueViolation } from "../../lib/db-errors";
import { conflict, notFound, validationError } from "../../lib/errors";
import { eventStatement } from "../../lib/events";
import { excerptOf } from "../../lib/excerpt";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import type { LinkClaims } from "../links/tokens";
import { analyseSentiment } from "../reviews/analysis/sentiment";
import { extractTopics } from "../reviews/analysis/topics";
import { callbackAlert } from "./alert";
import { checkAnswers } from "./answers";
import { bufferedViewAt, type Landing, type LandingSurvey } from "./landing";
import type { FeedbackRow, SubmitFeedbackInput } from "./schemas";

/** A submission may be replaced by the same link for this long; later attempts are 409. */
export const UPDATE_WINDOW_HOURS = 24;

/**
 * Every score as a 1..5 rating, for sentiment: NPS 0..10 -> 1 + n*0.4, CES 1..7 -> 1 + (n-1)*4/6.
 * An explicit rating wins.
 */
export function ratingEquivalent(f: {
  rating?: number | null;
  npsScore?: number | null;
  surveyType?: FeedbackSurveyType | null;
  score?: number | null;
}): number | null {
  if (f.rating != null) return f.rating;
  if (f.npsScore != null) return 1 + f.npsScore * 0.4;
  if (f.score != null && f.surveyType === "csat") return f.score;
  if (f.score != null && f.surveyType === "ces") return 1 + ((f.score - 1) * 4) / 6;
  return null;
}

/** NPS when only npsScore is given; a score of another kind than the shown survey's is a 400. */
function surveyTypeFor(input: SubmitFeedbackInput, survey: LandingSurvey | null): FeedbackSurveyType | null {
  const given = input.surveyType ?? (input.npsScore !== undefined ? "nps" : null);
  const asked = survey && survey.type !== "custom" ? (survey.type.toLowerCase() as FeedbackSurveyType) : null;
  if (given && asked && given !== asked)
    throw validationError([{ path: "surveyType", message: `This survey asks for a ${asked} score` }]);
  return given;
}

export interface SubmitResult {
  feedbackId: string;
  updated: boolean;
}

/**
 * POST /v1/f/{token} (and the hosted page's form). One submission per solicitation: a second one
 * within UPDATE_WINDOW_HOURS replaces the first, later ones are 409. A new submission sets the
 * solicitation's convertedAt (when not set), creates the feedback inbox item and emits
 * feedback.submitted; a callback request escalates the item and emails the location.
 * `ctx` acts as the system actor `public-feedback` in the token's tenant.
 */
export async function submitFeedback(
  ctx: ServiceContext,
  claims: LinkClaims,
  landing: Landing,
  input: SubmitFeedbackInput,
  attempt = 1,
): Promise<SubmitResult> {
  const [sols, existingRows, views] = await ctx.db.batch([
    ctx.db
      .select({
        id: solicitations.id,
        contactId: solicitations.contactId,
        campaignId: solicitations.campaignId,
        channel: solicitations.channel,
        convertedAt: solicitations.convertedAt,
      })
      .from(solicitations)
      .where(and(eq(solicitations.id, claims.solicitationId), eq(solicitations.tenantId, claims.tenantId))),
    ctx.db
      .select()
      .from(feedbackSubmissions)
      .where(
        and(
          eq(feedbackSubmissions.solicitationId, claims.solicitationId),
          eq(feedbackSubmissions.tenantId, claims.tenantId),
        ),
      ),
    ctx.db
      .select({ at: feedbackViews.lastViewedAt })
      .from(feedbackViews)
      .where(eq(feedbackViews.solicitationId, claims.solicitationId)),
  ]);
  const sol = sols[0];
  if (!sol) throw notFound("Feedback link");
  const existing = existingRows[0];
  const now = nowIso();
  if (existing && Date.parse(now) - Date.parse(existing.createdAt) > UPDATE_WINDOW_HOURS * 3600_000) {
    throw conflict(`Feedback for this link was already given more than ${UPDATE_WINDOW_HOURS} hours ago`);
  }

  const survey = landing.survey;
  const surveyResponses = checkAnswers(survey, input.surveyResponses ?? {});
  const surveyType = surveyTypeFor(input, survey);
  const npsScore = input.npsScore ?? (surveyType === "nps" ? input.score : undefined) ?? null;
  const score = input.score ?? (surveyType === "nps" ? npsScore : null);
  const comment = [input.text, input.followUpText].filter(Boolean).join("\n") || null;
  const { sentiment, score: sentimentScore } = analyseSentiment({
    rating: ratingEquivalent({ rating: input.rating, npsScore, surveyType, score }),
    text: comment,
  });
  const landedAt =
    [bufferedViewAt(sol.id), views[0]?.at ?? null]
      .filter((t): t is string => Boolean(t) && t! <= now)
      .sort()
      .pop() ?? null;
  const callbackRequested = Boolean(input.callbackRequested);

  const row: FeedbackRow = {
    id: existing?.id ?? newId(),
    tenantId: claims.tenantId,
    locationId: claims.locationId,
    solicitationId: sol.id,
    contactId: sol.contactId,
    campaignId: sol.campaignId,
    surveyId: survey?.id ?? null,
    type: input.type ?? (survey ? "survey" : "feedback"),
    rating: input.rating ?? null,
    npsScore,
    surveyType,
    score,
    text: input.text || null,
    followUpText: input.followUpText || null,
    callbackRequested,
    surveyResponses,
    sentiment,
    sentimentScore,
    topics: extractTopics(comment),
    landedAt,
    submittedAt: now,
    anonymizedAt: null,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };
  const summary = {
    rating: row.rating ?? (surveyType === "csat" ? score : null),
    excerpt: excerptOf(comment),
    sentiment,
  };
  const alert = callbackRequested && !existing?.callbackRequested;
  const escalation = alert ? { escalatedAt: now, escalationReason: "callback requested", escalatedBy: null } : {};

  const statements: BatchItem<"sqlite">[] = [];
  const events: PendingEvent[] = [];
  if (existing) {
    const { id, tenantId, createdAt, ...set } = row;
    statements.push(
      ctx.db
        .update(feedbackSubmissions)
        .set(set)
        .where(and(eq(feedbackSubmissions.id, id), eq(feedbackSubmissions.tenantId, tenantId))),
      ctx.db
        .update(inboxItems)
        .set({ ...summary, ...escalation, updatedAt: now })
        .where(and(eq(inboxItems.feedbackId, id), eq(inboxItems.tenantId, tenantId))),
    );
  } else {
    statements.push(
      ctx.db.insert(feedbackSubmissions).values(row),
      ctx.db.insert(inboxItems).values({
        id: newId(),
        tenantId: row.tenantId,
        type: "feedback",
        reviewId: null,
        feedbackId: row.id,
        locationId: row.locationId,
        // the channel of the request this feedback answers (the inbox's channel filter)
        channel: sol.channel,
        status: "new",
        assignedToUserId: null,
        tags: [],
        escalatedAt: null,
        escalationReason: null,
        escalatedBy: null,
        ...summary,
        ...escalation,
        createdAt: now,
        updatedAt: now,
      }),
    );
    events.push(
      eventStatement(ctx, "feedback.submitted", {
        feedbackId: row.id,
        solicitationId: sol.id,
        locationId: row.locationId,
        contactId: row.contactId,
        campaignId: row.campaignId,
        surveyId: row.surveyId,
        rating: row.rating,
        npsScore,
        surveyType,
        score,
        sentiment,
        callbackRequested,
      }),
    );
  }
  if (!sol.convertedAt) {
    statements.push(
      ctx.db
        .update(solicitations)
        .set({ convertedAt: now, updatedAt: now })
        .where(and(eq(solicitations.id, sol.id), isNull(solicitations.convertedAt))),
    );
    events.push(
      eventStatement(ctx, "solicitation.converted", {
        solicitationId: sol.id,
        via: "feedback",
        feedbackId: row.id,
        convertedAt: now,
      }),
    );
  }
  statements.push(
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: existing ? "feedback.updated" : "feedback.submitted",
      resourceType: "feedback",
      resourceId: row.id,
      previousState: existing ?? null,
      nextState: row,
      metadata: { solicitationId: sol.id, callbackAlert: alert },
    }),
  );
  try {
    await commit(ctx, statements, events);
  } catch (e) {
    // two first submissions at once: the loser becomes an update of the winner
    if (attempt === 1 && !existing && isUniqueViolation(e)) return submitFeedback(ctx, claims, landing, input, 2);
    throw e;
  }
  if (alert) ctx.defer(callbackAlert(ctx, landing, row));
  return { feedbackId: row.id, updated: Boolean(existing) };
}
