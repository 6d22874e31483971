import { z } from "@hono/zod-openapi";
import { paged, stdErrors } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { FeedbackSchema } from "../feedback/schemas";
import { SurveyListQuery, SurveySchema, SurveyStatsSchema } from "./schemas";
import { listSurveys } from "./service";
import { surveyResponses, surveyStats } from "./stats";

// The surveys operations served by REST, MCP and agents alike (src/lib/operation.ts).

export const listSurveysOperation = defineOperation({
  name: "survey.list",
  operationId: "listSurveys",
  method: "get",
  path: "/v1/surveys",
  tags: ["Surveys"],
  summary: "List surveys, newest first",
  description:
    "Lists customer surveys (NPS, CSAT, CES or custom) with their questions, whether they are templates and their " +
    "launch state (draft, active, closed).",
  request: { query: SurveyListQuery },
  output: paged(SurveySchema).openapi("SurveyPage"),
  errors: stdErrors,
  scopes: ["read:surveys"],
  access: "read",
  mcp: {
    title: "List surveys",
    limit: { default: 25, max: 200 },
    describe: {
      status: "draft, active or closed",
      type: "NPS, CSAT, CES or custom",
      isTemplate: "true: only reusable templates",
      cursor: "pageInfo.endCursor from the previous page",
    },
  },
  handler: async (ctx, input) => listSurveys(ctx, input),
});

export const surveyStatsOperation = defineOperation({
  name: "survey.stats",
  summary: "Survey statistics",
  description:
    "Totals, completion rate (submissions per landing view), average time to complete, NPS score with promoters, " +
    "passives and detractors, sentiment distribution of comments and the top themes customers mention.",
  input: z.object({ surveyId: z.string().min(1).max(64).describe("the survey's id (from survey.list)") }),
  output: SurveyStatsSchema,
  scopes: ["read:surveys"],
  access: "read",
  variantOf: {
    operationId: "getSurveyStats",
    why: "the spec's tool input is surveyId; derivable from GET /v1/surveys/{id}/stats with an MCP door (rename id)",
  },
  mcp: { title: "Survey statistics" },
  handler: async (ctx, input) => surveyStats(ctx, input.surveyId),
});

export const surveyResponsesOperation = defineOperation({
  name: "survey.responses",
  summary: "Survey responses",
  description:
    "Individual responses to a survey, newest first: the answers, the comment's sentiment and the NPS bucket " +
    "(promoter, passive, detractor). since limits to responses submitted at or after that time.",
  input: z.object({
    surveyId: z.string().min(1).max(64).describe("the survey's id"),
    since: z.iso.datetime({ offset: true }).optional().describe("ISO date-time"),
    limit: z.number().int().min(1).max(200).default(25).describe("how many (default 25)"),
    cursor: z.string().max(512).optional().describe("pageInfo.endCursor from the previous page"),
  }),
  output: paged(FeedbackSchema),
  scopes: ["read:feedback"],
  access: "read",
  variantOf: {
    operationId: "listSurveyResponses",
    why: "the spec's tool input is surveyId and since; page size default 25",
  },
  // outsider text: marked untrusted in results and the description (mcp/skills/untrusted.ts)
  untrusted: ["data[].text", "data[].followUpText", "data[].surveyResponses"],
  mcp: { title: "Survey responses" },
  handler: async (ctx, input) =>
    surveyResponses(ctx, input.surveyId, { limit: input.limit, cursor: input.cursor, since: input.since }),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [listSurveysOperation, surveyStatsOperation, surveyResponsesOperation];
