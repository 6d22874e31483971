import { z } from "@hono/zod-openapi";
import { errors, IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, noContent, type Operation } from "../../lib/operation";
import { FeedbackSchema } from "../feedback/schemas";
import {
  AttachSurveyBody,
  CampaignIdParam,
  CampaignSurveySchema,
  CreateSurveyBody,
  SurveyListQuery,
  SurveyResponsesQuery,
  SurveySchema,
  SurveyStatsSchema,
  UpdateSurveyBody,
} from "./schemas";
import {
  attachSurvey,
  createSurvey,
  deleteSurvey,
  detachSurvey,
  getCampaignSurvey,
  getSurvey,
  listSurveys,
  updateSurvey,
} from "./service";
import { surveyResponses, surveyStats } from "./stats";

// The surveys operations served by REST, MCP and agents alike (src/lib/operation.ts): every role reads
// them (API keys with read:surveys; a campaign's survey with read:campaigns, identity/scopes.ts),
// managers change them.

const tags = ["Surveys"];

export const listSurveysOperation = defineOperation({
  name: "survey.list",
  operationId: "listSurveys",
  method: "get",
  path: "/v1/surveys",
  tags,
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

export const createSurveyOperation = defineOperation({
  name: "survey.create",
  operationId: "createSurvey",
  method: "post",
  path: "/v1/surveys",
  tags,
  summary: "Create a survey as a draft (manager)",
  request: { body: CreateSurveyBody },
  status: 201,
  output: SurveySchema,
  errors: stdErrors,
  scopes: [],
  minRole: "manager",
  access: "write",
  handler: async (ctx, input) => createSurvey(ctx, input),
});

export const getSurveyOperation = defineOperation({
  name: "survey.get",
  operationId: "getSurvey",
  method: "get",
  path: "/v1/surveys/{id}",
  tags,
  summary: "Get a survey",
  request: { params: IdParam },
  output: SurveySchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:surveys"],
  access: "read",
  handler: async (ctx, input) => getSurvey(ctx, input.id),
});

export const updateSurveyOperation = defineOperation({
  name: "survey.update",
  operationId: "updateSurvey",
  method: "patch",
  path: "/v1/surveys/{id}",
  tags,
  summary: "Edit, launch, close or reopen a survey (manager)",
  description:
    "status moves: draft -> active (launch), active -> closed, closed -> active (reopen); others are 409 INVALID_TRANSITION. " +
    "questions can change only in draft (409 otherwise). Templates cannot be launched.",
  request: { params: IdParam, body: UpdateSurveyBody },
  output: SurveySchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: [],
  minRole: "manager",
  access: "write",
  handler: async (ctx, { id, ...patch }) => updateSurvey(ctx, id, patch),
});

export const deleteSurveyOperation = defineOperation({
  name: "survey.delete",
  operationId: "deleteSurvey",
  method: "delete",
  path: "/v1/surveys/{id}",
  tags,
  summary: "Delete a survey without responses (manager)",
  request: { params: IdParam },
  status: 204,
  statusText: "Deleted",
  output: noContent,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: [],
  minRole: "manager",
  access: "write",
  destructive: true,
  handler: async (ctx, input) => {
    await deleteSurvey(ctx, input.id);
  },
});

// also the MCP tool survey.stats (the spec's input name surveyId) and so an agent tool
export const getSurveyStatsOperation = defineOperation({
  name: "survey.stats",
  operationId: "getSurveyStats",
  method: "get",
  path: "/v1/surveys/{id}/stats",
  tags,
  summary: "Survey statistics: completion, time to complete, NPS, sentiment, themes",
  request: { params: IdParam },
  output: SurveyStatsSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:surveys"],
  access: "read",
  mcp: {
    title: "Survey statistics",
    description:
      "A survey's totals, completion rate (submissions per landing view), time to complete, NPS with its buckets, " +
      "comment sentiment and top themes.",
    rename: { id: "surveyId" },
    describe: { id: "from survey.list" },
  },
  handler: async (ctx, input) => surveyStats(ctx, input.id),
});

export const listSurveyResponsesOperation = defineOperation({
  name: "survey.list-responses",
  operationId: "listSurveyResponses",
  method: "get",
  path: "/v1/surveys/{id}/responses",
  tags,
  summary: "A survey's responses, newest first",
  request: { params: IdParam, query: SurveyResponsesQuery },
  output: paged(FeedbackSchema).openapi("SurveyResponsePage"),
  errors: stdErrorsWithNotFound,
  scopes: ["read:surveys"],
  access: "read",
  handler: async (ctx, { id, ...query }) => surveyResponses(ctx, id, query),
});

export const getCampaignSurveyOperation = defineOperation({
  name: "campaign-survey.get",
  operationId: "getCampaignSurvey",
  method: "get",
  path: "/v1/campaigns/{campaignId}/survey",
  tags,
  summary: "The survey a campaign's feedback page shows",
  request: { params: CampaignIdParam },
  output: CampaignSurveySchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:campaigns"],
  access: "read",
  handler: async (ctx, input) => getCampaignSurvey(ctx, input.campaignId),
});

export const updateCampaignSurveyOperation = defineOperation({
  name: "campaign-survey.update",
  operationId: "updateCampaignSurvey",
  method: "put",
  path: "/v1/campaigns/{campaignId}/survey",
  tags,
  summary: "Attach a survey to a campaign (manager)",
  description:
    "Replaces any attached survey and sets the campaign's reviewDestination to survey. The page shows it while it is active.",
  request: { params: CampaignIdParam, body: AttachSurveyBody },
  output: CampaignSurveySchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "manager",
  access: "write",
  idempotent: true,
  handler: async (ctx, input) => attachSurvey(ctx, input.campaignId, input.surveyId),
});

export const deleteCampaignSurveyOperation = defineOperation({
  name: "campaign-survey.delete",
  operationId: "deleteCampaignSurvey",
  method: "delete",
  path: "/v1/campaigns/{campaignId}/survey",
  tags,
  summary: "Detach the campaign's survey (manager)",
  request: { params: CampaignIdParam },
  status: 204,
  statusText: "Detached",
  output: noContent,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "manager",
  access: "write",
  destructive: true,
  idempotent: true,
  handler: async (ctx, input) => {
    await detachSurvey(ctx, input.campaignId);
  },
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
export const operations: Operation[] = [
  listSurveysOperation,
  createSurveyOperation,
  getSurveyOperation,
  updateSurveyOperation,
  deleteSurveyOperation,
  getSurveyStatsOperation,
  listSurveyResponsesOperation,
  getCampaignSurveyOperation,
  updateCampaignSurveyOperation,
  deleteCampaignSurveyOperation,
  surveyResponsesOperation,
];
