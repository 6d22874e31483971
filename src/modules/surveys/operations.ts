import { paged, stdErrors } from "../../lib/openapi";
import { defineOperation } from "../../lib/operation";
import { SurveyListQuery, SurveySchema } from "./schemas";
import { listSurveys } from "./service";

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
