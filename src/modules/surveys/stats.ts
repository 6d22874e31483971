import { and, count, eq, gte, sql } from "drizzle-orm";
import { feedbackSubmissions, feedbackViews } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { toFeedback } from "../feedback/schemas";
import { findSurveyRow } from "./service";

const TOP_THEMES = 10;
const round = (n: number | null, places: number) => (n == null ? null : Math.round(n * 10 ** places) / 10 ** places);

/**
 * GET /v1/surveys/{id}/stats and survey.stats, all in one D1 batch:
 * - completionRate = responses / solicitations whose page was opened with this survey;
 * - averageTimeToCompleteSeconds = mean(submittedAt - the latest landing view before it);
 * - NPS = % promoters (9-10) - % detractors (0-6) over responses with an NPS score;
 * - sentiment and themes come from each comment (the reviews module's analysers, at submit time).
 */
export async function surveyStats(ctx: ServiceContext, surveyId: string) {
  const survey = await findSurveyRow(ctx, surveyId);
  const f = feedbackSubmissions;
  const mine = and(eq(f.tenantId, ctx.tenantId), eq(f.surveyId, surveyId));
  const mainScore = survey.type === "NPS" ? f.npsScore : survey.type === "custom" ? f.rating : f.score;
  const [views, agg, themes] = await ctx.db.batch([
    ctx.db
      .select({ n: count() })
      .from(feedbackViews)
      .where(and(eq(feedbackViews.tenantId, ctx.tenantId), eq(feedbackViews.surveyId, surveyId))),
    ctx.db
      .select({
        responses: count(),
        withComment: sql<number>`coalesce(sum(${f.text} is not null or ${f.followUpText} is not null), 0)`,
        callbacks: sql<number>`coalesce(sum(${f.callbackRequested}), 0)`,
        promoters: sql<number>`coalesce(sum(${f.npsScore} >= 9), 0)`,
        passives: sql<number>`coalesce(sum(${f.npsScore} between 7 and 8), 0)`,
        detractors: sql<number>`coalesce(sum(${f.npsScore} <= 6), 0)`,
        npsResponses: count(f.npsScore),
        averageScore: sql<number | null>`avg(${mainScore})`,
        averageSeconds: sql<number | null>`avg((julianday(${f.submittedAt}) - julianday(${f.landedAt})) * 86400.0)`,
        positive: sql<number>`coalesce(sum(${f.sentiment} = 'positive'), 0)`,
        neutral: sql<number>`coalesce(sum(${f.sentiment} = 'neutral'), 0)`,
        negative: sql<number>`coalesce(sum(${f.sentiment} = 'negative'), 0)`,
      })
      .from(f)
      .where(mine),
    ctx.db
      .select({ theme: sql<string>`t.value`, count: sql<number>`count(*)` })
      .from(sql`${f}, json_each(${f.topics}) t`)
      .where(mine)
      .groupBy(sql`t.value`)
      .orderBy(sql`count(*) desc`, sql`t.value`)
      .limit(TOP_THEMES),
  ]);
  const a = agg[0]!;
  const viewCount = views[0]?.n ?? 0;
  const npsN = a.npsResponses;
  return {
    surveyId,
    type: survey.type,
    totals: { views: viewCount, responses: a.responses, withComment: a.withComment, callbackRequests: a.callbacks },
    completionRate: viewCount ? round(a.responses / viewCount, 4) : null,
    averageTimeToCompleteSeconds: round(a.averageSeconds, 1),
    nps: {
      score: npsN ? round(((a.promoters - a.detractors) / npsN) * 100, 1) : null,
      promoters: a.promoters,
      passives: a.passives,
      detractors: a.detractors,
      responses: npsN,
    },
    averageScore: round(a.averageScore, 2),
    sentiment: { positive: a.positive, neutral: a.neutral, negative: a.negative },
    topThemes: themes.map((t) => ({ theme: t.theme, count: t.count })),
  };
}

/** GET /v1/surveys/{id}/responses and survey.responses: newest first, with answers, sentiment and NPS bucket. */
export async function surveyResponses(ctx: ServiceContext, surveyId: string, q: PageQuery & { since?: string }) {
  await findSurveyRow(ctx, surveyId);
  const f = feedbackSubmissions;
  const where = and(
    eq(f.tenantId, ctx.tenantId),
    eq(f.surveyId, surveyId),
    q.since ? gte(f.submittedAt, new Date(q.since).toISOString()) : undefined,
  );
  return keysetPage(ctx.db, {
    query: q,
    sort: [f.submittedAt, f.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(f)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(f).where(where),
    key: (r) => [r.submittedAt, r.id],
    map: toFeedback,
  });
}
