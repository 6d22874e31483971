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
  description: "Customer surveys with their questions, whether they are templates and their launch state.",
  request: { query: SurveyListQuery },
  output: paged(SurveySchema).openapi("SurveyPage"),
  errors: stdErrors,
  scopes: ["read:surveys"],
  access: "read",
  mcp: {
    title: "List surveys",
    limit: { default: 25, max: 200 },
  },
  handler: async (ctx, input) => listSurveys(ctx, input),
});

export const surveyStatsOperation = defineOperation({
  name: "survey.stats",
  summary: "Survey statistics",
  description:
    "A survey's totals, completion rate (submissions per landing view), time to complete, NPS with its buckets, " +
    "comment sentiment and top themes.",
  input: z.object({ surveyId: z.string().min(1).max(64).describe("from survey.list") }),
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
    "A survey's responses, newest first: the answers, the comment's sentiment and the NPS bucket; since: submitted at or after.",
  input: z.object({
    surveyId: z.string().min(1).max(64),
    since: z.iso.datetime({ offset: true }).optional(),
    limit: z.number().int().min(1).max(200).default(25),
    cursor: z.string().max(512).optional(),
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
