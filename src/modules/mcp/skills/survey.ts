import { z } from "@hono/zod-openapi";
import { surveyResponses, surveyStats } from "../../surveys/stats";
import { skill } from "./registry";

export const surveyStatsSkill = skill({
  name: "survey.stats",
  title: "Survey statistics",
  description:
    "Totals, completion rate (submissions per landing view), average time to complete, NPS score with promoters, " +
    "passives and detractors, sentiment distribution of comments and the top themes customers mention.",
  input: z.object({ surveyId: z.string().min(1).max(64).describe("the survey's id (from survey.list)") }),
  scopes: ["read:surveys"],
  access: "read",
  handler: async (ctx, input) => surveyStats(ctx, input.surveyId),
});

export const surveyResponsesSkill = skill({
  name: "survey.responses",
  title: "Survey responses",
  description:
    "Individual responses to a survey, newest first: the answers, the comment's sentiment and the NPS bucket " +
    "(promoter, passive, detractor). since limits to responses submitted at or after that time.",
  input: z.object({
    surveyId: z.string().min(1).max(64).describe("the survey's id"),
    since: z.iso.datetime({ offset: true }).optional().describe("ISO date-time"),
    limit: z.number().int().min(1).max(200).default(25).describe("how many (default 25)"),
    cursor: z.string().max(512).optional().describe("pageInfo.endCursor from the previous page"),
  }),
  scopes: ["read:feedback"],
  access: "read",
  // outsider text: marked untrusted in results and the description (untrusted.ts)
  untrusted: ["data[].text", "data[].followUpText", "data[].surveyResponses"],
  handler: async (ctx, input) =>
    surveyResponses(ctx, input.surveyId, { limit: input.limit, cursor: input.cursor, since: input.since }),
});
